import { describe, expect, it } from 'vitest';
import { parseExact } from '../../../src/push/input/exact-numbers.js';
import type { PlainObject, InputRecord } from '../../../src/push/input/input-record.js';
import {
  parseKeyMapping,
  recordKey,
  foldKey,
  keyColumn,
  type KeyColumn,
  keyedRecords,
  type KeyedOptions,
  PushedKeys,
} from '../../../src/push/key/record-key.js';
import { TdsError, UsageError } from '../../../src/core/errors.js';
import { acceptedOperators, COLUMN_TYPES, type ColumnType, type Field } from '../../../src/service/index.js';
import { thrownBy } from '../../helpers/thrown.js';

/** recordKey of a JSON text, read as the JSON readers read it (exact number literals kept). */
function keyOfJson(json: string, field: string): ReturnType<typeof recordKey> {
  const { value, numbers } = parseExact(json);
  return recordKey(value as PlainObject, numbers, field);
}

describe('parseKeyMapping', () => {
  it.each([
    ['email', { field: 'email', column: 'email' }],
    ['email=Email address', { field: 'email', column: 'Email address' }],
    [' email = Email ', { field: 'email', column: 'Email' }],
    ['address.email=f_123', { field: 'address.email', column: 'f_123' }],
    // only the first = separates: a column label may hold one
    ['id=a=b', { field: 'id', column: 'a=b' }],
    ['a.b', { field: 'a.b', column: 'a.b' }],
  ])('%j → %j', (text, spec) => {
    expect(parseKeyMapping(text)).toEqual(spec);
  });
});

describe('recordKey', () => {
  it('reads a string key as it is', () => {
    expect(recordKey({ email: 'Ann@Example.com', x: 1 }, undefined, 'email')).toEqual({ key: 'Ann@Example.com' });
    // not trimmed, not folded: folding is the column's business
    expect(recordKey({ id: ' a ' }, undefined, 'id')).toEqual({ key: ' a ' });
  });

  it('follows a dotted path into nested objects', () => {
    expect(recordKey({ address: { email: 'a@b.c' } }, undefined, 'address.email')).toEqual({ key: 'a@b.c' });
    expect(recordKey({ a: { b: { c: 'deep' } } }, undefined, 'a.b.c')).toEqual({ key: 'deep' });
    expect(recordKey({ a: { 'b.c': 'mixed' } }, undefined, 'a.b.c')).toEqual({ key: 'mixed' });
  });

  it('takes a key that literally holds the dot before the path', () => {
    expect(recordKey({ 'a.b': 'flat', a: { b: 'nested' } }, undefined, 'a.b')).toEqual({ key: 'flat' });
    expect(recordKey({ a: { b: 'nested' } }, undefined, 'a.b')).toEqual({ key: 'nested' });
  });

  it('does not read inherited members', () => {
    expect(recordKey({}, undefined, 'toString')).toMatchObject({ problem: expect.stringContaining('has no') });
    expect(recordKey({ a: {} }, undefined, 'a.constructor')).toMatchObject({ problem: expect.stringContaining('has no') });
  });

  it('turns numbers and booleans into their text; a number as its exact literal', () => {
    expect(recordKey({ id: 42 }, undefined, 'id')).toEqual({ key: '42' });
    expect(recordKey({ id: 1.5 }, undefined, 'id')).toEqual({ key: '1.5' });
    expect(recordKey({ ok: true }, undefined, 'ok')).toEqual({ key: 'true' });
    expect(keyOfJson('{"id": 9007199254740993}', 'id')).toEqual({ key: '9007199254740993' });
    expect(keyOfJson('{"a": {"id": 12345678901234567890}}', 'a.id')).toEqual({ key: '12345678901234567890' });
    expect(keyOfJson('{"id": 7}', 'id')).toEqual({ key: '7' });
  });

  it.each<[string, PlainObject, string]>([
    ['missing', { other: 'x' }, 'it has no "id"'],
    ['null', { id: null }, 'it has no "id"'],
    ['empty', { id: '' }, 'it has no "id"'],
    ['blank', { id: '  \t ' }, 'its "id" is blank'],
    ['an object', { id: { x: 1 } }, 'its "id" is not a plain value'],
    ['an array', { id: ['a'] }, 'its "id" is not a plain value'],
    ['under a value that is not an object', { id: 'text' }, 'it has no "id.x"'],
  ])('a key that is %s is a problem', (_name, value, problem) => {
    const field = problem.includes('id.x') ? 'id.x' : 'id';
    expect(recordKey(value, undefined, field)).toEqual({ problem });
  });

  it('accepts 200 characters and rejects 201, counted in code points', () => {
    expect(recordKey({ id: 'a'.repeat(200) }, undefined, 'id')).toEqual({ key: 'a'.repeat(200) });
    expect(recordKey({ id: 'a'.repeat(201) }, undefined, 'id')).toMatchObject({ problem: expect.stringContaining('more than 200') });
    // 200 emoji are 400 string units and still 200 characters
    const emoji = '😀'.repeat(200);
    expect(recordKey({ id: emoji }, undefined, 'id')).toEqual({ key: emoji });
    expect(recordKey({ id: `${emoji}x` }, undefined, 'id')).toMatchObject({ problem: expect.stringContaining('more than 200') });
    // a number literal of 201 digits (kept exactly) too, and one of 200 accepted
    expect(keyOfJson(`{"id": ${'12'.repeat(100)}3}`, 'id')).toMatchObject({ problem: expect.stringContaining('more than 200') });
    expect(keyOfJson(`{"id": ${'12'.repeat(100)}}`, 'id')).toEqual({ key: '12'.repeat(100) });
  });
});

const field = (id: string, label: string, name: string, type: ColumnType = 'text'): Field => ({
  id,
  name,
  label,
  type,
  options: null,
  isSystem: false,
});

const FIELDS: Field[] = [
  field('f1', 'Email', 'email', 'email'),
  field('f2', 'Name', 'full_name'),
  field('f3', 'Company', 'company'),
  field('f4', 'Company', 'company_2'),
  // a label that is another column's ID
  field('f5', 'f2', 'odd', 'number'),
  field('f6', 'Done', 'done', 'boolean'),
];

const usageError = (run: () => unknown): UsageError => thrownBy(UsageError, run);

describe('keyColumn', () => {
  it('finds the column by ID, then label, then name', () => {
    expect(keyColumn(FIELDS, 'f1').field.id).toBe('f1');
    expect(keyColumn(FIELDS, 'Email').field.id).toBe('f1');
    expect(keyColumn(FIELDS, 'full_name').field.id).toBe('f2');
    expect(keyColumn(FIELDS, 'Name').field.id).toBe('f2');
    // an ID wins over a label equal to it
    expect(keyColumn(FIELDS, 'f2').field.id).toBe('f2');
    // a label wins over another column's name
    expect(keyColumn([field('a', 'x', 'y'), field('b', 'y', 'x')], 'x').field.id).toBe('a');
  });

  it('names the columns that share a label, and asks for an ID', () => {
    const error = usageError(() => keyColumn(FIELDS, 'Company'));
    expect(error.message).toContain('"Company"');
    expect(error.message).toContain('2 columns');
    expect(error.message).toContain('f3, f4');
    expect(error.hint).toContain('COLUMN_ID');
    expect(error.exitCode).toBe(2);
    // by ID or name each one can still be chosen
    expect(keyColumn(FIELDS, 'f4').field.id).toBe('f4');
    expect(keyColumn(FIELDS, 'company_2').field.id).toBe('f4');
  });

  it('refuses an unknown column', () => {
    const error = usageError(() => keyColumn(FIELDS, 'Nope'));
    expect(error.message).toContain('no column "Nope"');
    expect(error.hint).toContain('tds schema');
    // case matters
    expect(() => keyColumn(FIELDS, 'email address')).toThrow(UsageError);
    expect(() => keyColumn([], 'x')).toThrow(/no column "x"/);
  });

  it('refuses a name two columns share', () => {
    expect(() => keyColumn([field('a', 'A', 'same'), field('b', 'B', 'same')], 'same')).toThrow(/no column "same"/);
  });

  it.each<[ColumnType, KeyColumn['operator']]>([
    ['text', 'in'],
    ['select', 'in'],
    ['url', 'any'],
    ['image', 'any'],
    ['formula', 'any'],
    ['email', 'eq'],
    ['phone_number', 'eq'],
    ['number', 'eq'],
  ])('looks %s keys up with `%s`', (type, operator) => {
    expect(keyColumn([field('k', 'K', 'k', type)], 'K')).toEqual({ field: field('k', 'K', 'k', type), operator });
  });

  it('chooses an operator the column type accepts (docs/service-api.md 4.5)', () => {
    const name = { in: 'in', any: 'containsAnyOf', eq: '=' } as const;
    let keyTypes = 0;
    for (const type of COLUMN_TYPES) {
      let column: KeyColumn;
      try {
        column = keyColumn([field('k', 'K', 'k', type)], 'k');
      } catch {
        continue;
      }
      expect(acceptedOperators(type)).toContain(name[column.operator]);
      keyTypes += 1;
    }
    expect(keyTypes).toBe(8);
  });

  it.each<ColumnType>(['boolean', 'date', 'multi_select', 'object', 'action', 'webhook', 'member', 'input'])(
    'refuses a %s column, which cannot hold a key',
    (type) => {
      const error = usageError(() => keyColumn([field('k', 'Key', 'k', type)], 'Key'));
      expect(error.message).toContain(`of type ${type}`);
      expect(error.message).toContain('"Key"');
      expect(error.hint).toContain('text');
      expect(error).toBeInstanceOf(TdsError);
    },
  );
});

describe('foldKey', () => {
  const text = keyColumn([field('k', 'K', 'k', 'text')], 'k');
  const email = keyColumn([field('k', 'K', 'k', 'email')], 'k');
  const number = keyColumn([field('k', 'K', 'k', 'number')], 'k');

  it('ignores case for text-like columns', () => {
    expect(foldKey(text, 'ABC-Def')).toBe('abc-def');
    expect(foldKey(email, 'Ann@Example.COM')).toBe('ann@example.com');
    expect(foldKey(text, 'ÄÖÜ')).toBe('äöü');
    // only case: spaces and number text stay as they are
    expect(foldKey(text, ' 1.50 ')).toBe(' 1.50 ');
    expect(foldKey(text, 'a') === foldKey(text, 'A')).toBe(true);
  });

  it.each([
    ['1.50', '1.5'],
    ['1.5', '1.5'],
    ['01', '1'],
    [' 42 ', '42'],
    ['1e3', '1000'],
    ['1000.000', '1000'],
    ['-0', '0'],
    ['-2.50', '-2.5'],
  ])('makes the number %j canonical (%j)', (key, folded) => {
    expect(foldKey(number, key)).toBe(folded);
  });

  it('leaves a number column key that is not a number as it is', () => {
    expect(foldKey(number, 'abc')).toBe('abc');
    expect(foldKey(number, '1e400')).toBe('1e400');
  });
});

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
