import { UsageError } from '../../core/index.js';
import type { JournalEntry } from '../journal/journal-format.js';
import { batchId, narrowBatch, splitBatch, type Batch } from './batch.js';

/** The latest journal entry of each batch and part. */
export class JournalIndex {
  private readonly latest = new Map<string, JournalEntry>();
  private readonly numbers = new Set<number>();
  readonly maxBatch: number;
  /** when the journal's last line was written (ms; 0 for none): every request of the earlier runs had left by then */
  readonly lastAt: number;

  constructor(entries: readonly JournalEntry[]) {
    let max = 0;
    let lastAt = 0;
    for (const entry of entries) {
      this.latest.set(batchId({ number: entry.batch, part: entry.part ?? '' }), entry);
      this.numbers.add(entry.batch);
      max = Math.max(max, entry.batch);
      lastAt = Math.max(lastAt, Date.parse(entry.at) || 0);
    }
    this.maxBatch = max;
    this.lastAt = lastAt;
  }

  get(batch: Pick<Batch, 'number' | 'part'>): JournalEntry | undefined {
    return this.latest.get(batchId(batch));
  }

  /** whether the journal has anything about this batch or a part of it */
  has(number: number): boolean {
    return this.numbers.has(number);
  }
}

/**
 * What a resumed run does with the uncertain batches of an earlier run: the batches named by
 * --resend-uncertain are sent again, those named by --accept-uncertain are recorded as taken in
 * (each flag alone names every one), the others are left as they are.
 */
export interface UncertainPolicy {
  resend?: BatchSelection;
  accept?: BatchSelection;
  /** --key: every uncertain batch is reconciled by looking its keys up in the table */
  byKey?: boolean;
}

/** What to do with a rebuilt batch, given what the journal says happened to it before. */
export type Decision =
  /** never sent, not taken in (429, refused…), or uncertain with --resend-uncertain */
  | { kind: 'send'; batch: Batch; previous?: JournalEntry }
  | { kind: 'accepted'; batch: Batch; entry: JournalEntry }
  /** uncertain before, and the user found its rows in the table (--accept-uncertain) */
  | { kind: 'confirmed'; batch: Batch; entry: JournalEntry }
  | { kind: 'rejected'; batch: Batch; entry: JournalEntry }
  /** uncertain (or cut off while sending) and --resend-uncertain not given: left alone */
  | { kind: 'uncertain'; batch: Batch; entry: JournalEntry }
  /** uncertain, with --key: its keys are looked up, and only the records not found are sent again */
  | { kind: 'reconcile'; batch: Batch; entry: JournalEntry }
  /** --key: records an earlier run found in the table (already there, or taken in by an uncertain request) */
  | { kind: 'known'; records: number; why: 'existing' | 'settled' }
  | { kind: 'mismatch'; batch: Batch; entry: JournalEntry; problem: string };

export function decide(batch: Batch, index: JournalIndex | undefined, uncertain: UncertainPolicy): Decision[] {
  const entry = index?.get(batch);
  if (!entry) return [{ kind: 'send', batch }];
  const problem = mismatch(batch, entry);
  if (problem) return [{ kind: 'mismatch', batch, entry, problem }];
  switch (entry.state) {
    case 'accepted':
      return [{ kind: 'accepted', batch, entry }];
    case 'rejected':
      return [{ kind: 'rejected', batch, entry }];
    case 'split':
      return splitBatch(batch, entry.splitAt).flatMap((half) => decide(half, index, uncertain));
    case 'narrowed': {
      const rest = narrowBatch(batch, new Set(entry.keep ?? []));
      const known: Decision = { kind: 'known', records: batch.items.length - (rest?.items.length ?? 0), why: entry.why ?? 'settled' };
      return rest ? [known, ...decide(rest, index, uncertain)] : [known];
    }
    case 'uncertain':
    case 'sending':
      if (selects(uncertain.resend, batch.number)) return [{ kind: 'send', batch, previous: entry }];
      if (selects(uncertain.accept, batch.number)) return [{ kind: 'confirmed', batch, entry }];
      if (uncertain.byKey) return [{ kind: 'reconcile', batch, entry }];
      return [{ kind: 'uncertain', batch, entry }];
    case 'unsent':
      return [{ kind: 'send', batch, previous: entry }];
    default:
      return [{ kind: 'mismatch', batch, entry, problem: `unknown state "${String(entry.state)}"` }];
  }
}

function mismatch(batch: Batch, entry: JournalEntry): string | undefined {
  if (entry.count !== batch.items.length || entry.first !== batch.first || entry.last !== batch.last) {
    return `the journal has records ${entry.first}–${entry.last} (${entry.count}), the input gives ${batch.first}–${batch.last} (${batch.items.length})`;
  }
  if (entry.sha256 !== batch.sha256) return 'its records differ from the ones the journal recorded';
  if (entry.state === 'split' && batch.items.length < 2) return 'the journal split a batch of one record';
  return undefined;
}

/** Batch numbers chosen on the command line: every one, or some (`44-46,47`). */
export type BatchSelection = 'all' | readonly BatchRange[];

export interface BatchRange {
  first: number;
  last: number;
}

/** `44-46,47` → the ranges; a flag given without a list is `all`. */
export function parseBatchSelection(flag: string, text: string | true): BatchSelection {
  if (text === true) return 'all';
  const ranges = text.split(',').map((part) => {
    const match = /^\s*(\d+)(?:\s*-\s*(\d+))?\s*$/.exec(part);
    const first = Number(match?.[1]);
    const last = match?.[2] === undefined ? first : Number(match[2]);
    if (!match || first < 1 || last < first || !Number.isSafeInteger(last)) {
      throw new UsageError(`${flag} takes batch numbers such as 44-46,47 (got "${text}")`, {
        hint: `the numbers are the batches the summary lists as uncertain; give the webhook and file before ${flag}, or write ${flag}=BATCHES`,
      });
    }
    return { first, last };
  });
  return ranges;
}

export function selects(selection: BatchSelection | undefined, batch: number): boolean {
  if (selection === undefined) return false;
  return selection === 'all' || selection.some((range) => batch >= range.first && batch <= range.last);
}

/** Whether two selections name a batch in common. */
export function overlaps(a: BatchSelection, b: BatchSelection): boolean {
  if (a === 'all' || b === 'all') return true;
  return a.some((x) => b.some((y) => x.first <= y.last && y.first <= x.last));
}
