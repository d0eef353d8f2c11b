import { UsageError } from '../../core/errors.js';
import type { InputRecord, ReadStats } from '../input/input-record.js';
import { keyedRecords, type KeyedOptions } from '../key/keyed-records.js';
import { batchId, batchRecords, type Batch, type BatchEvent, type BatchLimits } from './batch.js';
import { decide, type JournalIndex, type UncertainPolicy } from './resume-plan.js';
import { add, PushTally } from './tally.js';

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

/** Records (→ their keys) → batches within `limits` → the batches due (on --resume, those the journal has not concluded). */
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

export interface DueOptions {
  tally: PushTally;
  /** the journal of an earlier run (--resume) */
  index?: JournalIndex;
  uncertain: UncertainPolicy;
  /** called for each uncertain batch the user confirmed as taken in (--accept-uncertain), to journal it */
  onConfirmed?: (batch: Batch) => Promise<void> | void;
  journalPath?: string;
  /** called for records that will not be sent: too large, or rejected by an earlier run */
  onRejected?: (batchOrItem: { items: Batch['items'] }, reason: string) => Promise<void> | void;
  maxBytes: number;
  signal?: AbortSignal;
  /** --key: a record whose key repeats an earlier one's (the pair, and the key) */
  onDuplicate?: (record: number, of: number, key: string) => void;
  /** a batch an earlier run had sent and the webhook took in, and when that was journaled (ms) */
  onAccepted?: (batch: Batch, at: number) => void;
}

/**
 * The batches this run has to send, in input order, with everything else counted on the way: empty
 * and oversized records, and (on --resume) batches the journal already concluded. Every batch the
 * journal knows is checked against the rebuilt one; a difference stops the run (exit 2). A batch the
 * journal does not know is held back until every batch the journal does know has been checked, so a
 * different input is refused before anything new is sent.
 */
export async function* dueBatches(events: AsyncIterable<BatchEvent>, options: DueOptions): AsyncGenerator<Batch> {
  const { tally, index } = options;
  const held: Batch[] = [];
  let lastNumber = 0;
  for await (const event of events) {
    options.signal?.throwIfAborted();
    if (event.kind !== 'batch') {
      await countLeftOut(event, options);
      continue;
    }
    const { batch } = event;
    lastNumber = batch.number;
    add(tally.planned, batch);
    for (const decision of decide(batch, index, options.uncertain)) {
      switch (decision.kind) {
        case 'send':
          add(tally.toSend, decision.batch);
          if (index && !index.has(batch.number) && batch.number < index.maxBatch) held.push(decision.batch);
          else yield decision.batch;
          break;
        case 'accepted':
          add(tally.already, decision.batch);
          options.onAccepted?.(decision.batch, Date.parse(decision.entry.at));
          break;
        case 'known':
          if (decision.why === 'existing') tally.existing += decision.records;
          else tally.reconciled += decision.records;
          break;
        case 'confirmed':
          add(tally.already, decision.batch);
          await options.onConfirmed?.(decision.batch);
          break;
        case 'rejected':
          tally.reject(decision.batch.items.map((item) => item.record));
          await options.onRejected?.(decision.batch, decision.entry.reason ?? `rejected (HTTP ${decision.entry.status ?? '?'})`);
          break;
        case 'uncertain':
          tally.markUncertain(
            decision.batch,
            decision.entry.reason ?? (decision.entry.state === 'sending' ? 'cut off while sending' : undefined),
          );
          break;
        case 'reconcile':
          add(tally.toSend, decision.batch);
          yield { ...decision.batch, unreconciled: { at: Date.parse(decision.entry.at), cutOff: decision.entry.state === 'sending' } };
          break;
        case 'mismatch':
          throw journalMismatch(options.journalPath, `batch ${batchId(decision.batch)}: ${decision.problem}`);
      }
    }
    if (index && batch.number >= index.maxBatch) yield* held.splice(0);
  }
  if (index && lastNumber < index.maxBatch) {
    throw journalMismatch(options.journalPath, `the journal records batch ${index.maxBatch}, the input makes ${lastNumber} batches`);
  }
}

/** A record that is not sent: empty, a repeated key, no key, or too large alone. */
async function countLeftOut(event: Exclude<BatchEvent, { kind: 'batch' }>, options: DueOptions): Promise<void> {
  const { tally } = options;
  switch (event.kind) {
    case 'skipped':
      tally.skipped += 1;
      return;
    case 'duplicate':
      tally.duplicate(event.record, event.of);
      options.onDuplicate?.(event.record, event.of, event.key);
      return;
    case 'keyless':
      tally.reject([event.item.record]);
      await options.onRejected?.({ items: [event.item] }, `no key: ${event.reason}`);
      return;
    case 'oversized':
      tally.reject([event.item.record], true);
      await options.onRejected?.(
        { items: [event.item] },
        `the object is ${event.item.bytes} bytes; a request body may hold at most ${options.maxBytes} bytes`,
      );
  }
}

function journalMismatch(path: string | undefined, detail: string): UsageError {
  return new UsageError(`the input does not match the journal ${path ?? ''}: ${detail}; no further batch was sent`, {
    hint: 'resume with the same input and options as the first run; a journal belongs to one input',
  });
}
