import type { InputRecord, ReadStats } from '../input/input-record.js';
import { keyedRecords, type KeyedOptions } from '../key/keyed-records.js';
import { batchRecords, type Batch, type BatchLimits } from './batch.js';
import { dueBatches, type DueOptions } from './due-batches.js';
import { PushTally } from './tally.js';

/** One pass over the input: the batches this run has to send, and the counts of everything else. */
export interface BatchPass {
  batches: AsyncGenerator<Batch>;
  tally: PushTally;
  /** Filled in while reading; `sha256` once the input has ended. */
  stats: ReadStats;
  /** The input was read to its end (every batch it makes was handed out). */
  readonly exhausted: boolean;
}

export type PassOptions = Omit<DueOptions, 'tally' | 'maxBytes'> & {
  /** --key: each record's key read, repeated and missing keys marked */
  key?: KeyedOptions;
};

/** Records (→ their keys) → batches within `limits` → the batches due (on --resume, those the journal has not settled). */
export function batchPass(
  reader: { records: AsyncIterable<InputRecord[]>; stats: ReadStats },
  limits: BatchLimits,
  options: PassOptions,
): BatchPass {
  const tally = new PushTally();
  const records = options.key ? keyedRecords(reader.records, options.key) : reader.records;
  const due = dueBatches(batchRecords(records, limits), { ...options, tally, maxBytes: limits.maxBytes });
  const state = { exhausted: false };
  async function* batches(): AsyncGenerator<Batch> {
    yield* due;
    state.exhausted = true;
  }
  return {
    tally,
    stats: reader.stats,
    batches: batches(),
    get exhausted() {
      return state.exhausted;
    },
  };
}
