import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  batchId,
  batchRecords,
  bodyBytes,
  splitBatch,
  type Batch,
  type BatchEvent,
  type BatchLimits,
} from '../../../src/push/plan/batch.js';
import type { InputRecord } from '../../../src/push/input/input-record.js';

async function collect(values: Record<string, unknown>[], limits: BatchLimits, chunkSize = 3): Promise<BatchEvent[]> {
  const records: InputRecord[] = values.map((value, i) => ({ record: i + 1, value, json: JSON.stringify(value) }));
  const chunks = (async function* () {
    for (let i = 0; i < records.length; i += chunkSize) yield records.slice(i, i + chunkSize);
  })();
  const events: BatchEvent[] = [];
  for await (const event of batchRecords(chunks, limits)) events.push(event);
  return events;
}

const batchesOf = (events: BatchEvent[]): Batch[] => events.flatMap((event) => (event.kind === 'batch' ? [event.batch] : []));

describe('batchRecords', () => {
  it('cuts by count', async () => {
    const batches = batchesOf(
      await collect(
        Array.from({ length: 7 }, (_, i) => ({ i })),
        { maxObjects: 3, maxBytes: 1_000_000 },
      ),
    );
    expect(batches.map((b) => [b.number, b.first, b.last, b.items.length])).toEqual([
      [1, 1, 3, 3],
      [2, 4, 6, 3],
      [3, 7, 7, 1],
    ]);
  });

  it('cuts by the exact body bytes, multi-byte characters included', async () => {
    const value = { s: 'é'.repeat(10) }; // {"s":"éééééééééé"} = 28 bytes
    const one = Buffer.byteLength(JSON.stringify(value));
    expect(one).toBe(28);
    const limit = bodyBytes(3, 3 * one); // exactly three fit
    const batches = batchesOf(
      await collect(
        Array.from({ length: 7 }, () => value),
        { maxObjects: 500, maxBytes: limit },
      ),
    );
    expect(batches.map((b) => b.items.length)).toEqual([3, 3, 1]);
    expect(batches[0]!.bytes).toBe(limit);
    expect(batches[0]!.body.length).toBe(limit);
    const smaller = batchesOf(
      await collect(
        Array.from({ length: 3 }, () => value),
        { maxObjects: 500, maxBytes: limit - 1 },
      ),
    );
    expect(smaller.map((b) => b.items.length)).toEqual([2, 1]);
  });

  it('builds the body as a JSON array of the objects, with its sha256', async () => {
    const [batch] = batchesOf(await collect([{ a: 1 }, { b: 'x' }], { maxObjects: 500, maxBytes: 1_000_000 }));
    expect(batch!.body.toString()).toBe('[{"a":1},{"b":"x"}]');
    expect(batch!.sha256).toBe(createHash('sha256').update('[{"a":1},{"b":"x"}]').digest('hex'));
  });

  it('reports empty objects as skipped and objects too large alone as oversized, and goes on', async () => {
    const big = { s: 'x'.repeat(100) };
    const events = await collect([{ a: 1 }, {}, big, { a: 2 }], { maxObjects: 500, maxBytes: 50 });
    expect(
      events.map((event) =>
        event.kind === 'batch'
          ? [event.kind, event.batch.first, event.batch.last]
          : [event.kind, 'item' in event ? event.item.record : event.record],
      ),
    ).toEqual([
      ['skipped', 2],
      ['oversized', 3],
      ['batch', 1, 4],
    ]);
    const oversized = events.find((event) => event.kind === 'oversized');
    expect(oversized?.kind === 'oversized' && oversized.item.bytes).toBe(Buffer.byteLength(JSON.stringify(big)));
  });

  it('--key: an empty object is skipped, not rejected for its missing key; a keyed record without a key is', async () => {
    const records: InputRecord[] = [
      { record: 1, value: {}, json: '{}', excluded: { kind: 'keyless', reason: 'no email' } },
      { record: 2, value: { name: 'x' }, json: '{"name":"x"}', excluded: { kind: 'keyless', reason: 'no email' } },
    ];
    const events: BatchEvent[] = [];
    for await (const event of batchRecords(
      (async function* () {
        yield records;
      })(),
      { maxObjects: 500, maxBytes: 1_000_000 },
    ))
      events.push(event);
    expect(events.map((event) => event.kind)).toEqual(['skipped', 'keyless']);
  });

  it('accepts an object that exactly fills the body limit alone', async () => {
    const value = { s: 'x'.repeat(20) };
    const limit = bodyBytes(1, Buffer.byteLength(JSON.stringify(value)));
    expect(batchesOf(await collect([value], { maxObjects: 500, maxBytes: limit }))).toHaveLength(1);
    expect((await collect([value], { maxObjects: 500, maxBytes: limit - 1 }))[0]!.kind).toBe('oversized');
  });

  it('never exceeds either limit, and keeps every record once, in order (property)', async () => {
    const value = fc.dictionary(fc.string({ maxLength: 4 }), fc.oneof(fc.string({ maxLength: 40 }), fc.integer(), fc.constant('東京😀')), {
      maxKeys: 4,
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(value, { maxLength: 60 }),
        fc.integer({ min: 1, max: 7 }),
        fc.integer({ min: 10, max: 400 }),
        fc.integer({ min: 1, max: 9 }),
        async (values, maxObjects, maxBytes, chunkSize) => {
          const events = await collect(values, { maxObjects, maxBytes }, chunkSize);
          const seen: number[] = [];
          for (const event of events) {
            if (event.kind === 'batch') {
              const { batch } = event;
              expect(batch.items.length).toBeGreaterThan(0);
              expect(batch.items.length).toBeLessThanOrEqual(maxObjects);
              expect(batch.body.length).toBe(batch.bytes);
              expect(batch.bytes).toBeLessThanOrEqual(maxBytes);
              expect(JSON.parse(batch.body.toString())).toEqual(batch.items.map((item) => values[item.record - 1]));
              seen.push(...batch.items.map((item) => item.record));
            } else if (event.kind === 'skipped') {
              expect(values[event.record - 1]).toEqual({});
              seen.push(event.record);
            } else if (event.kind === 'oversized') {
              expect(bodyBytes(1, event.item.bytes)).toBeGreaterThan(maxBytes);
              seen.push(event.item.record);
            }
          }
          expect(seen.sort((a, b) => a - b)).toEqual(values.map((_, i) => i + 1));
          const batchRecordsInOrder = batchesOf(events).flatMap((b) => b.items.map((item) => item.record));
          expect(batchRecordsInOrder).toEqual([...batchRecordsInOrder].sort((a, b) => a - b));
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('splitBatch (413)', () => {
  it('halves by count and names the parts', async () => {
    const [batch] = batchesOf(
      await collect(
        Array.from({ length: 5 }, (_, i) => ({ i })),
        { maxObjects: 500, maxBytes: 1_000_000 },
      ),
    );
    const [left, right] = splitBatch(batch!);
    expect([left.items.length, right.items.length]).toEqual([3, 2]);
    expect([batchId(left), batchId(right)]).toEqual(['1.1', '1.2']);
    expect([left.first, left.last, right.first, right.last]).toEqual([1, 3, 4, 5]);
    expect(batchId(splitBatch(right)[1])).toBe('1.2.2');
    expect(JSON.parse(right.body.toString())).toEqual([{ i: 3 }, { i: 4 }]);
  });
});
