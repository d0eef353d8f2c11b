import { createHash } from 'node:crypto';
import type { InputRecord } from '../input/input-record.js';

export interface BatchItem {
  record: number;
  json: string;
  /** UTF-8 bytes of `json` */
  bytes: number;
  /** --key: the record's key as the service compares it */
  key?: string;
}

/** One POST body: a JSON array of the items' objects. */
export interface Batch {
  /** 1-based, in input order */
  number: number;
  /** '' for a whole batch; '1', '2', '1.2', … for the halves a 413 made */
  part: string;
  items: BatchItem[];
  first: number;
  last: number;
  /** exact bytes of `body` */
  bytes: number;
  body: Buffer;
  sha256: string;
  /**
   * --key: an uncertain batch of an earlier run, to be reconciled by looking its keys up (not sent as it
   * is): when it was journaled, and whether it was cut off while sending (not known to be answered);
   * `changed`: not an uncertain request but a batch of an input that changed since an earlier run, which
   * may hold records that run sent
   */
  unreconciled?: { at: number; cutOff: boolean; changed?: true };
  /** --skip-existing: the records whose keys the table already holds */
  existing?: ReadonlySet<number>;
}

export type BatchEvent =
  | { kind: 'batch'; batch: Batch }
  /** an empty object: never sent */
  | { kind: 'skipped'; record: number }
  /** an object whose body alone would exceed the byte limit: never sent */
  | { kind: 'oversized'; item: BatchItem }
  /** --key: a record whose key repeats record `of`'s: never sent */
  | { kind: 'duplicate'; record: number; of: number; key: string }
  /** --key: a record without a usable key: rejected */
  | { kind: 'keyless'; item: BatchItem; reason: string };

export interface BatchLimits {
  maxObjects: number;
  maxBytes: number;
}

/** `12`, `12.1`, `12.1.2`: how the journal and messages name a batch or a part of it. */
export function batchId(batch: Pick<Batch, 'number' | 'part'>): string {
  return batch.part ? `${batch.number}.${batch.part}` : String(batch.number);
}

export function makeBatch(number: number, part: string, items: BatchItem[]): Batch {
  const body = Buffer.allocUnsafe(
    bodyBytes(
      items.length,
      items.reduce((sum, item) => sum + item.bytes, 0),
    ),
  );
  let at = body.write('[', 0, 'latin1');
  items.forEach((item, i) => {
    if (i > 0) at += body.write(',', at, 'latin1');
    at += body.write(item.json, at, 'utf8');
  });
  body.write(']', at, 'latin1');
  return {
    number,
    part,
    items,
    first: items[0]!.record,
    last: items[items.length - 1]!.record,
    bytes: body.length,
    body,
    sha256: createHash('sha256').update(body).digest('hex'),
  };
}

/** The records of a batch that go on (not in the table yet, or not found there after an uncertain request). */
export function narrowBatch(batch: Batch, keep: ReadonlySet<number>): Batch | undefined {
  const items = batch.items.filter((item) => keep.has(item.record));
  return items.length === 0 ? undefined : makeBatch(batch.number, batch.part ? `${batch.part}.k` : 'k', items);
}

/** The two halves of a batch (by count), as a 413 asks; or its first `at` records and the rest (the webhook's budget). */
export function splitBatch(batch: Batch, at?: number): [Batch, Batch] {
  const middle = at ?? Math.ceil(batch.items.length / 2);
  const prefix = batch.part ? `${batch.part}.` : '';
  return [
    makeBatch(batch.number, `${prefix}1`, batch.items.slice(0, middle)),
    makeBatch(batch.number, `${prefix}2`, batch.items.slice(middle)),
  ];
}

/** Bytes of a body holding `count` objects of `objectBytes` in total: `[a,b,c]`. */
export function bodyBytes(count: number, objectBytes: number): number {
  return 2 + objectBytes + Math.max(0, count - 1);
}

/**
 * Groups records into batches of at most `maxObjects` objects and `maxBytes` body bytes, in input
 * order, each record once. Empty objects and objects too large to send alone are reported instead.
 */
export async function* batchRecords(chunks: AsyncIterable<readonly InputRecord[]>, limits: BatchLimits): AsyncGenerator<BatchEvent> {
  let items: BatchItem[] = [];
  let objectBytes = 0;
  let number = 0;
  const flush = (): BatchEvent => {
    const batch = makeBatch(++number, '', items);
    items = [];
    objectBytes = 0;
    return { kind: 'batch', batch };
  };
  for await (const chunk of chunks) {
    for (const { record, json, key, excluded } of chunk) {
      // an empty object is skipped whatever its key would have been (it has none, and is never sent)
      if (json === '{}') {
        yield { kind: 'skipped', record };
        continue;
      }
      if (excluded?.kind === 'duplicate') {
        yield { kind: 'duplicate', record, of: excluded.of, key: excluded.key };
        continue;
      }
      if (excluded?.kind === 'keyless') {
        yield { kind: 'keyless', item: { record, json, bytes: Buffer.byteLength(json, 'utf8') }, reason: excluded.reason };
        continue;
      }
      const bytes = Buffer.byteLength(json, 'utf8');
      if (bodyBytes(1, bytes) > limits.maxBytes) {
        yield { kind: 'oversized', item: { record, json, bytes } };
        continue;
      }
      if (items.length > 0 && bodyBytes(items.length + 1, objectBytes + bytes) > limits.maxBytes) yield flush();
      items.push({ record, json, bytes, ...(key !== undefined ? { key } : {}) });
      objectBytes += bytes;
      if (items.length >= limits.maxObjects) yield flush();
    }
  }
  if (items.length > 0) yield flush();
}

/** `record 7` or `records 1–3`. */
export function recordsText({ first, last }: Pick<Batch, 'first' | 'last'>): string {
  return first === last ? `record ${first}` : `records ${first}–${last}`;
}
