import { UsageError } from '../../core/index.js';
import type { InputRecord, ReadStats } from '../input/input-record.js';
import { keyedRecords, type KeyedOptions } from '../key/record-key.js';
import { batchId, batchRecords, type Batch, type BatchEvent, type BatchLimits } from './batch.js';
import type { JournalEntry } from '../journal/journal-format.js';
import { decide, type Decision, type JournalIndex, type UncertainPolicy } from './resume-plan.js';
import { add, PushTally } from './tally.js';

/** One read of the input: the batches this run has to send, and the counts of everything else. */
export interface InputBatches {
  batches: AsyncGenerator<Batch>;
  tally: PushTally;
  /** Filled in while reading; `sha256` once the input has ended. */
  stats: ReadStats;
  /** The input was read to its end (every batch it makes was handed out). */
  readonly exhausted: boolean;
}

export type BatchInputOptions = Omit<DueOptions, 'tally' | 'maxBytes'> & {
  /** --key: each record's key read, repeated and missing keys marked */
  key?: KeyedOptions;
};

/** Records (→ their keys) → batches within `limits` → the batches due (on --resume, those the journal has not concluded). */
export function batchInput(
  reader: { records: AsyncIterable<InputRecord[]>; stats: ReadStats },
  limits: BatchLimits,
  options: BatchInputOptions,
): InputBatches {
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
 * different input is refused before anything new is sent. With --key the key is the record's identity,
 * so a changed input is not refused: once a batch differs from the journal's, it and every later batch
 * the journal has not concluded are reconciled by their keys (the records whose keys the table holds are
 * not sent again).
 */
export async function* dueBatches(events: AsyncIterable<BatchEvent>, options: DueOptions): AsyncGenerator<Batch> {
  const { tally, index } = options;
  const held: Batch[] = [];
  let lastNumber = 0;
  // --key: the input differs from the journal's, so a batch of it the journal does not know may hold records sent before
  let changed = false;
  /** a batch to reconcile by key: its journaled state's time, or (none) the journal's last line's, when every request of it had left */
  const byKey = (batch: Batch, entry?: JournalEntry): Batch => {
    add(tally.toSend, batch);
    const unreconciled = entry ? { at: Date.parse(entry.at), cutOff: entry.state === 'sending' } : { at: index?.lastAt ?? 0, cutOff: true };
    const uncertain = entry?.state === 'uncertain' || entry?.state === 'sending';
    return { ...batch, unreconciled: uncertain ? unreconciled : { ...unreconciled, changed: true } };
  };
  const asItIs = (batch: Batch): Batch => {
    add(tally.toSend, batch);
    return batch;
  };
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
          if (index && !index.has(batch.number) && batch.number < index.maxBatch) held.push(decision.batch);
          else yield changed && !index?.has(batch.number) ? byKey(decision.batch) : asItIs(decision.batch);
          break;
        case 'reconcile':
          yield byKey(decision.batch, decision.entry);
          break;
        case 'mismatch':
          if (!options.uncertain.byKey) throw journalMismatch(options.journalPath, `batch ${batchId(decision.batch)}: ${decision.problem}`);
          changed = true;
          yield byKey(decision.batch, decision.entry);
          break;
        default:
          await countConcluded(decision, options);
      }
    }
    if (index && batch.number >= index.maxBatch) {
      for (const due of held.splice(0)) yield changed ? byKey(due) : asItIs(due);
    }
  }
  // --key: an input that makes fewer batches than the journal knows changed; what it still holds is reconciled by key
  if (options.uncertain.byKey) for (const due of held.splice(0)) yield byKey(due);
  if (index && lastNumber < index.maxBatch && !options.uncertain.byKey) {
    throw journalMismatch(options.journalPath, `the journal records batch ${index.maxBatch}, the input makes ${lastNumber} batches`);
  }
}

/** A batch the journal concluded (or left uncertain), counted and told to the read's listeners. */
async function countConcluded(
  decision: Exclude<Decision, { kind: 'send' | 'reconcile' | 'mismatch' }>,
  options: DueOptions,
): Promise<void> {
  const { tally } = options;
  switch (decision.kind) {
    case 'accepted':
      add(tally.already, decision.batch);
      options.onAccepted?.(decision.batch, Date.parse(decision.entry.at));
      return;
    case 'known':
      // found in the table by an earlier run: already there, or (settled) sent by one of its requests
      if (decision.why === 'existing') tally.existing += decision.records;
      else tally.earlierRuns += decision.records;
      return;
    case 'confirmed':
      add(tally.already, decision.batch);
      await options.onConfirmed?.(decision.batch);
      return;
    case 'rejected':
      tally.reject(decision.batch.items.map((item) => item.record));
      await options.onRejected?.(decision.batch, decision.entry.reason ?? `rejected (HTTP ${decision.entry.status ?? '?'})`);
      return;
    case 'uncertain':
      tally.markUncertain(
        decision.batch,
        decision.entry.reason ?? (decision.entry.state === 'sending' ? 'cut off while sending' : undefined),
      );
      return;
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
