import { WEBHOOK_MAX_BODY_BYTES } from '../../service/index.js';
import { JOURNAL_VERSION, type JournalHeader } from './journal-entry.js';

type KeyBatching = NonNullable<JournalHeader['batching']['key']>;
import type { InputFormat } from '../input/input-record.js';
import type { ReadStats } from '../input/input-record.js';
import type { ReadOptions } from '../input/read-input.js';

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
