import type { InputFormat } from '../input/input-record.js';

// The push journal: JSON lines, a header and then one line per batch state change, each written and
// fsynced before the step it records goes on (before a POST starts, after its outcome is known).

export const JOURNAL_VERSION = 1;

/**
 * `narrowed`: only the records in `keep` go on, as the batch's part `k` (the others are in the table
 * already: `why` existing, or found there after an uncertain request: `why` reconciled).
 */
export type BatchState = 'sending' | 'accepted' | 'uncertain' | 'rejected' | 'split' | 'unsent' | 'narrowed';

export interface JournalHeader {
  journal: 'tds push';
  version: number;
  createdAt: string;
  input: { path: string; format: InputFormat; bytes?: number; sha256?: string };
  /** everything that decides where batches start and end */
  batching: {
    batchSize: number;
    maxBytes: number;
    types: 'strings' | 'infer';
    nest: string | null;
    relaxColumns: boolean;
    /** --key FIELD and how its column compares keys (a repeated key is left out of the batches); absent in older journals */
    key?: { field: string; compare: 'text' | 'number' } | null;
  };
  /** `shown`: the displayUrl (the field keeps its name: journals of earlier runs are read too) */
  webhook: { shown: string; sha256: string };
}

export interface JournalEntry {
  batch: number;
  /** the half of a batch a 413 made: '1', '2', '1.2', … */
  part?: string;
  first: number;
  last: number;
  count: number;
  bytes: number;
  sha256: string;
  state: BatchState;
  status?: number;
  /** why a batch was rejected, uncertain or not sent (service message, network error) */
  reason?: string;
  /** narrowed: the record numbers that go on */
  keep?: number[];
  why?: 'existing' | 'settled';
  at: string;
}

export interface JournalContents {
  header: JournalHeader;
  entries: JournalEntry[];
}

/** What the journal needs to know of a batch (or of the half of one a 413 made). */
export interface BatchRef {
  number: number;
  /** '' for a whole batch */
  part: string;
  first: number;
  last: number;
  items: { length: number };
  bytes: number;
  sha256: string;
}

/** The journal's reason for an uncertain batch the user confirmed (--accept-uncertain). */
export const CONFIRMED_REASON = 'rows found in the table by the user (--accept-uncertain)';

export function entryOf(
  batch: BatchRef,
  state: BatchState,
  extra: { status?: number; reason?: string; keep?: number[]; why?: JournalEntry['why'] } = {},
): JournalEntry {
  return {
    batch: batch.number,
    ...(batch.part ? { part: batch.part } : {}),
    first: batch.first,
    last: batch.last,
    count: batch.items.length,
    bytes: batch.bytes,
    sha256: batch.sha256,
    state,
    ...(extra.status !== undefined ? { status: extra.status } : {}),
    ...(extra.reason !== undefined ? { reason: extra.reason } : {}),
    ...(extra.keep !== undefined ? { keep: extra.keep } : {}),
    ...(extra.why !== undefined ? { why: extra.why } : {}),
    at: new Date().toISOString(),
  };
}
