import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/core/errors.js';
import type { InputRecord } from '../../../src/push/input/input-record.js';
import type { PlainObject } from '../../../src/push/input/nest-keys.js';
import { keyColumn } from '../../../src/push/key/key-column.js';
import { keyedRecords, type KeyedOptions } from '../../../src/push/key/keyed-records.js';
import { PushedKeys } from '../../../src/push/key/pushed-keys.js';
import type { ColumnType } from '../../../src/service/index.js';

const columnOf = (type: ColumnType) => keyColumn([{ id: 'k', name: 'key', label: 'Key', type, options: null, isSystem: false }], 'Key');

function options(type: ColumnType, extra: Partial<KeyedOptions> = {}): KeyedOptions {
  return { spec: { field: 'id', column: 'Key' }, column: columnOf(type), onDuplicate: 'skip', source: 'in.ndjson', ...extra };
}

/** Runs the records through keyedRecords in chunks of `chunk`; returns them as they came out. */
async function mark(values: PlainObject[], opts: KeyedOptions, chunk = 2): Promise<InputRecord[]> {
  const records: InputRecord[] = values.map((value, i) => ({ record: i + 1, value, json: JSON.stringify(value) }));
  const chunks = (async function* () {
    for (let i = 0; i < records.length; i += chunk) yield records.slice(i, i + chunk);
  })();
  const out: InputRecord[] = [];
  for await (const part of keyedRecords(chunks, opts)) {
    expect(part.length).toBeLessThanOrEqual(chunk);
    out.push(...part);
  }
  return out;
}

const summary = (records: InputRecord[]) =>
  records.map((r) =>
    r.excluded ? [r.record, r.excluded.kind, 'of' in r.excluded ? r.excluded.of : r.excluded.reason] : [r.record, r.key],
  );

describe('keyedRecords', () => {
  it('folds each key and marks a repeat with the first record that had it (text: any case)', async () => {
    const out = await mark([{ id: 'A' }, { id: 'b' }, { id: 'a' }, { id: 'B' }, { id: 'c' }, { id: 'A' }], options('text'));
    expect(summary(out)).toEqual([
      [1, 'a'],
      [2, 'b'],
      [3, 'duplicate', 1],
      [4, 'duplicate', 2],
      [5, 'c'],
      [6, 'duplicate', 1],
    ]);
    // the duplicate carries the key as the input had it
    expect(out[2]!.excluded).toEqual({ kind: 'duplicate', of: 1, key: 'a' });
    expect(out[2]!.key).toBeUndefined();
  });

  it('compares number keys as numbers', async () => {
    const out = await mark([{ id: '1.50' }, { id: 1.5 }, { id: '2' }, { id: ' 2.0 ' }, { id: '10' }], options('number'));
    expect(summary(out)).toEqual([
      [1, '1.5'],
      [2, 'duplicate', 1],
      [3, '2'],
      [4, 'duplicate', 3],
      [5, '10'],
    ]);
  });

  it('compares number text as text in a text column', async () => {
    const out = await mark([{ id: '1.50' }, { id: '1.5' }], options('text'));
    expect(summary(out)).toEqual([
      [1, '1.50'],
      [2, '1.5'],
    ]);
  });

  it('marks records without a usable key as keyless, with the reason', async () => {
    const out = await mark([{ id: 'x' }, { other: 1 }, { id: ' ' }, { id: { a: 1 } }, { id: 'y'.repeat(201) }], options('text'));
    expect(summary(out)).toEqual([
      [1, 'x'],
      [2, 'keyless', 'it has no "id"'],
      [3, 'keyless', 'its "id" is blank'],
      [4, 'keyless', 'its "id" is not a plain value'],
      [5, 'keyless', expect.stringContaining('more than 200')],
    ]);
  });

  it('with --on-duplicate error, throws naming both record numbers and the key', async () => {
    const error = await mark([{ id: 'a' }, { id: 'b' }, { id: 'c' }, { id: 'B' }], options('text', { onDuplicate: 'error' })).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toContain('in.ndjson: records 2 and 4 have the same key "B"');
    expect((error as UsageError).message).toContain('--on-duplicate error');
    expect((error as UsageError).exitCode).toBe(2);
  });

  it('collects the keys of records sent in PushedKeys, in input order (no duplicates, no keyless)', async () => {
    const keys = new PushedKeys();
    await mark([{ id: 'Z' }, { id: 'y' }, {}, { id: 'z' }, { id: 'X' }, { id: 'y' }], options('text', { keys }), 4);
    expect(keys.wanted()).toEqual(['z', 'y', 'x']);
    expect(keys.count).toBe(3);
    expect(keys.sample(2)).toEqual(['z', 'y']);
    keys.reject([2]);
    expect(keys.wanted()).toEqual(['z', 'x']);
  });

  it('reads nested keys through dotted paths', async () => {
    const opts = options('email', { spec: { field: 'who.email', column: 'Key' } });
    const out = await mark([{ who: { email: 'A@x.io' } }, { 'who.email': 'a@X.io' }], opts);
    expect(summary(out)).toEqual([
      [1, 'a@x.io'],
      [2, 'duplicate', 1],
    ]);
  });
});

describe('PushedKeys', () => {
  it('takes rejections another pass saw', () => {
    const first = new PushedKeys();
    first.add(1, 'a');
    first.reject([1]);
    const second = new PushedKeys();
    second.add(1, 'a');
    second.add(2, 'b');
    second.rejectAll(first);
    expect(second.wanted()).toEqual(['b']);
  });

  it('rejects a key that is not a number for a number column (it could not be looked up)', async () => {
    const out = await mark([{ id: '42' }, { id: 'abc' }, { id: Infinity }, { id: ' 7.50 ' }, { id: '7.5' }], options('number'));
    expect(summary(out)).toEqual([
      [1, '42'],
      [2, 'keyless', 'its "id" is not a number, and the column "Key" holds numbers'],
      [3, 'keyless', 'its "id" is not a number, and the column "Key" holds numbers'],
      [4, '7.5'],
      [5, 'duplicate', 4],
    ]);
  });
});
