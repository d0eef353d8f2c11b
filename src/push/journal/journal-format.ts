import type { ReadStats } from '../input/input-record.js';
import type { InputFormat } from '../options.js';
import { WEBHOOK_MAX_BODY_BYTES } from '../../service/index.js';
import type { ReadOptions } from '../input/read-input.js';

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
  /** split: the records of part 1 (a 413 halves the batch: absent; the webhook's budget cuts it where it runs out) */
  splitAt?: number;
  /** the webhook the batch went to, when not the header's (--webhook NEW, the next of a saved list): its hash's first 16 digits */
  webhook?: string;
  at: string;
}

/**
 * The line a push that completed (exit 0) appends: its journal may go after JOURNAL_KEEP_DAYS
 * (journal-folder.ts). A later run that continues the journal appends after it, so only a last line says so.
 */
export interface CompletionLine {
  complete: true;
  at: string;
}

export const isCompletionLine = (line: unknown): line is CompletionLine =>
  typeof line === 'object' && line !== null && (line as { complete?: unknown }).complete === true;

export interface JournalContents {
  header: JournalHeader;
  entries: JournalEntry[];
  /** the last line is a completion line: the push it records completed */
  complete?: boolean;
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
  extra: { status?: number; reason?: string; keep?: number[]; why?: JournalEntry['why']; splitAt?: number; webhook?: string } = {},
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
    ...(extra.splitAt !== undefined ? { splitAt: extra.splitAt } : {}),
    ...(extra.webhook !== undefined ? { webhook: extra.webhook } : {}),
    at: new Date().toISOString(),
  };
}

type KeyBatching = NonNullable<JournalHeader['batching']['key']>;

export interface HeaderInput {
  path: string;
  format: InputFormat;
  batchSize: number;
  maxBytes: number;
  infer: boolean;
  nest?: string;
  relaxColumns: boolean;
  key?: KeyBatching;
  /** the webhook as displayed (redacted), and its fingerprint (the hash of its URL) */
  target: { displayUrl: string; fingerprint: string };
  bytes?: number;
  sha256?: string;
}

export function journalHeader(input: HeaderInput): JournalHeader {
  return {
    journal: 'tds push',
    version: JOURNAL_VERSION,
    createdAt: new Date().toISOString(),
    input: {
      path: input.path,
      format: input.format,
      ...(input.bytes !== undefined ? { bytes: input.bytes } : {}),
      ...(input.sha256 !== undefined ? { sha256: input.sha256 } : {}),
    },
    batching: {
      batchSize: input.batchSize,
      maxBytes: input.maxBytes,
      types: input.infer ? 'infer' : 'strings',
      nest: input.nest ?? null,
      relaxColumns: input.relaxColumns,
      key: input.key ?? null,
    },
    webhook: { shown: input.target.displayUrl, sha256: input.target.fingerprint },
  };
}

/** A push as its journal's header describes it. */
export interface PushHeaderSpec {
  input: { path: string; read: ReadOptions };
  batchSize: number;
  target: HeaderInput['target'];
  /** the input's size and hash, once it has been read */
  stats?: Pick<ReadStats, 'bytes' | 'sha256'>;
  key?: KeyBatching;
}

/** The header for a push of this input with this batch size. */
export function journalHeaderFor({ input, batchSize, target, stats, key }: PushHeaderSpec): JournalHeader {
  return journalHeader({
    path: input.path,
    format: input.read.format,
    batchSize,
    maxBytes: WEBHOOK_MAX_BODY_BYTES,
    infer: input.read.infer,
    nest: input.read.nest,
    relaxColumns: input.read.relaxColumns,
    target,
    bytes: stats?.bytes,
    sha256: stats?.sha256,
    key,
  });
}

/** Why a journal cannot be resumed with these settings: anything that moves batch boundaries, or another webhook. */
export function headerDifferences(journaled: JournalHeader, now: JournalHeader): string[] {
  const problems: string[] = [];
  const was = (what: string, before: unknown, after: unknown): void => {
    if (before !== after) problems.push(`${what} was ${show(before)}, now ${show(after)}`);
  };
  was('the input format', journaled.input.format, now.input.format);
  was('--batch-size', journaled.batching.batchSize, now.batching.batchSize);
  was('the body limit', journaled.batching.maxBytes, now.batching.maxBytes);
  was('--types', journaled.batching.types, now.batching.types);
  was('--nest', journaled.batching.nest, now.batching.nest);
  was('--relax-columns', journaled.batching.relaxColumns, now.batching.relaxColumns);
  const key = (header: JournalHeader): string | null => {
    const spec = header.batching.key;
    return spec ? `${spec.field} (compared as ${spec.compare})` : null;
  };
  was('--key', key(journaled), key(now));
  if (journaled.webhook.sha256 !== now.webhook.sha256)
    problems.push(`the webhook was ${journaled.webhook.shown}, now ${now.webhook.shown}`);
  return problems;
}

function show(value: unknown): string {
  return value === null ? 'not set' : typeof value === 'string' ? `"${value}"` : String(value);
}
