import { describe, expect, it } from 'vitest';
import { keyColumn, type KeyColumn } from '../../../src/push/key/record-key.js';
import { RULES_PER_QUERY, keysOfRow, KeySnapshot, QueryLookup, TableRead } from '../../../src/push/key/key-lookups.js';
import type { ColumnType, Field, Row } from '../../../src/service/index.js';
import { FakeTable, keyField as field, rowOf, TABLE_ID } from './fake-table.js';

const OTHER: Field = { id: 'o', name: 'other', label: 'Other', type: 'text', options: null, isSystem: false };

function setup(type: ColumnType, rows: Row[], options: Field['options'] = null) {
  const fields = [field(type, options), OTHER];
  const table = new FakeTable(fields, rows);
  const column: KeyColumn = keyColumn(fields, 'k');
  return { table, column, target: { client: table.client, tableId: TABLE_ID, column } };
}

/** Rows r0 … r(n-1) with the key cell `key<i>`, newest first, one minute apart. */
function manyRows(count: number, start = Date.parse('2026-01-01T12:00:00Z')): Row[] {
  return Array.from({ length: count }, (_, i) =>
    rowOf(`r${String(i).padStart(5, '0')}`, { k: `Key${i}`, o: 'x' }, new Date(start - i * 60_000).toISOString()),
  );
}

describe('keysOfRow', () => {
  const text = keyColumn([field('text')], 'k');
  const number = keyColumn([field('number')], 'k');
  const select = keyColumn([field('select', [{ label: 'Gold Tier', value: 'opt_1' }])], 'k');

  it('folds the key cell value', () => {
    expect(keysOfRow(text, rowOf('r', { k: 'ABC' }))).toEqual(['abc']);
    expect(keysOfRow(number, rowOf('r', { k: 1.5 }))).toEqual(['1.5']);
    expect(keysOfRow(number, rowOf('r', { k: '1.50' }))).toEqual(['1.5']);
    expect(keysOfRow(text, rowOf('r', { k: true }))).toEqual(['true']);
  });

  it('finds nothing in an empty, missing, non-scalar or cut cell', () => {
    expect(keysOfRow(text, rowOf('r', { o: 'x' }))).toEqual([]);
    expect(keysOfRow(text, rowOf('r', { k: null }))).toEqual([]);
    expect(keysOfRow(text, rowOf('r', { k: { a: 1 } }))).toEqual([]);
    expect(keysOfRow(text, rowOf('r', { k: ['a'] }))).toEqual([]);
    const cut: Row = { ...rowOf('r', {}), cells: { k: { value: 'a'.repeat(200), isTruncated: true, valuePreview: 'a'.repeat(200) } } };
    expect(keysOfRow(text, cut)).toEqual([]);
    // a cell that says it is not cut counts
    const whole: Row = { ...rowOf('r', {}), cells: { k: { value: 'A', isTruncated: false } } };
    expect(keysOfRow(text, whole)).toEqual(['a']);
  });

  it('gives a select cell both its option value and its label', () => {
    expect(keysOfRow(select, rowOf('r', { k: 'opt_1' }))).toEqual(['opt_1', 'gold tier']);
    expect(keysOfRow(select, rowOf('r', { k: 'Unknown' }))).toEqual(['unknown']);
  });
});

describe('QueryLookup', () => {
  it('finds the rows whose key equals a wanted key, in one query', async () => {
    const { table, target } = setup('text', [rowOf('r1', { k: 'Alpha' }), rowOf('r2', { k: 'beta' }), rowOf('r3', { k: 'gamma' })]);
    const lookup = new QueryLookup(target);
    const found = await lookup.find(['alpha', 'gamma', 'delta', 'alpha']);
    expect([...found.keys()].sort()).toEqual(['alpha', 'gamma']);
    expect(found.get('alpha')!.id).toBe('r1');
    expect(lookup.requests).toBe(1);
    expect(table.queries).toHaveLength(1);
    expect(table.queries[0]).toMatchObject({ limit: 100, filters: { combinator: 'or', rules: [{ fieldId: 'k', operator: 'in' }] } });
    // each key asked for once
    expect((table.queries[0]!.filters!.rules[0] as { value: string[] }).value).toEqual(['alpha', 'gamma', 'delta']);
    expect(await lookup.present(['beta', 'zeta'])).toEqual(new Set(['beta']));
    expect(lookup.requests).toBe(2);
  });

  it('does not count a containsAnyOf match on part of a value', async () => {
    const { target } = setup('url', [
      rowOf('r1', { k: 'https://a.example/x' }),
      rowOf('r2', { k: 'https://a.example' }),
      rowOf('r3', { k: 'HTTPS://B.EXAMPLE' }),
      rowOf('r4', { k: 'https://c.example/page' }),
    ]);
    const lookup = new QueryLookup(target);
    const found = await lookup.find(['https://a.example', 'https://b.example', 'https://c.example']);
    expect([...found.entries()].map(([key, row]) => [key, row.id]).sort()).toEqual([
      ['https://a.example', 'r2'],
      ['https://b.example', 'r3'],
    ]);
  });

  it('follows every page of matches and every query', async () => {
    const rows = manyRows(250);
    const { table, target } = setup('email', rows);
    const wanted = rows.map((row) => String(row.cells.k!.value).toLowerCase());
    const lookup = new QueryLookup(target);
    const present = await lookup.present(wanted);
    expect(present.size).toBe(250);
    // 250 `=` rules: 3 queries; 97 + 97 + 56 matches: 1 + 1 + 1 pages
    expect(table.queries.filter((body) => body.cursor === undefined)).toHaveLength(Math.ceil(250 / RULES_PER_QUERY));
    expect(lookup.requests).toBe(table.queries.length);

    const { table: big, target: bigTarget } = setup('text', rows);
    const all = new QueryLookup(bigTarget);
    expect((await all.present(wanted)).size).toBe(250);
    // one `in` query, 250 matches: three pages, the cursor sent back with the same filters
    expect(big.queries.map((body) => body.cursor)).toEqual([undefined, 'c100', 'c200']);
    expect(new Set(big.queries.map((body) => JSON.stringify(body.filters))).size).toBe(1);
    expect(all.requests).toBe(3);
  });

  it('finds number keys by number', async () => {
    const { table, target } = setup('number', [rowOf('r1', { k: 1.5 }), rowOf('r2', { k: 20 })]);
    const present = await new QueryLookup(target).present(['1.5', '20', '3']);
    expect(present).toEqual(new Set(['1.5', '20']));
    expect(table.queries[0]!.filters!.rules).toEqual([
      { fieldId: 'k', operator: '=', value: 1.5 },
      { fieldId: 'k', operator: '=', value: 20 },
      { fieldId: 'k', operator: '=', value: 3 },
    ]);
  });

  it('makes no request for no keys', async () => {
    const { table, target } = setup('text', manyRows(3));
    const lookup = new QueryLookup(target);
    expect(await lookup.present([])).toEqual(new Set());
    expect(lookup.requests).toBe(0);
    expect(table.queries).toEqual([]);
  });
});

describe('TableRead', () => {
  it('reads every page of the table and keeps the rows of the keys wanted', async () => {
    const rows = manyRows(230);
    const { table, target } = setup('text', rows);
    const read = new TableRead(target);
    const found = await read.find(['key0', 'key229', 'key100', 'nope']);
    expect([...found.keys()].sort()).toEqual(['key0', 'key100', 'key229']);
    expect(found.get('key229')!.id).toBe('r00229');
    expect(read.requests).toBe(3);
    expect(table.reads).toEqual([undefined, 'c100', 'c200']);
  });

  it('with `since`, stops below that creation time', async () => {
    const start = Date.parse('2026-01-01T12:00:00Z');
    const rows = manyRows(350, start);
    const { table, target } = setup('text', rows);
    // rows 0–120 are at or after `since`: the page holding row 120 is the last one read
    const since = start - 120 * 60_000;
    const read = new TableRead(target, since);
    const visited: string[] = [];
    await read.each((row) => visited.push(row.id));
    expect(read.requests).toBe(2);
    expect(table.reads).toEqual([undefined, 'c100']);
    expect(visited).toHaveLength(200);
    const found = await new TableRead(target, since).find(['key5', 'key120', 'key300']);
    expect([...found.keys()].sort()).toEqual(['key120', 'key5']);
  });

  it('with `since`, reads on while a page holds no row older than it', async () => {
    const start = Date.parse('2026-01-01T12:00:00Z');
    const { target } = setup('text', manyRows(300, start));
    // row 199 is the oldest of page 2 and not older than `since`: page 3 is read too
    const read = new TableRead(target, start - 199 * 60_000);
    await read.each(() => undefined);
    expect(read.requests).toBe(3);
  });
});

describe('KeySnapshot', () => {
  it('reads the table once, then answers every question from it', async () => {
    const rows = manyRows(150);
    rows.push({ ...rowOf('cut', {}), cells: { k: { value: 'x'.repeat(200), isTruncated: true } } });
    const { table, target } = setup('text', rows);
    const snapshot = new KeySnapshot(target);
    expect(await snapshot.present(['key1', 'KEY2', 'key149', 'nope'])).toEqual(new Set(['key1', 'key149']));
    const requests = snapshot.requests;
    expect(requests).toBe(2);
    expect(await snapshot.present(['key7', 'x'.repeat(200)])).toEqual(new Set(['key7']));
    expect(snapshot.requests).toBe(requests);
    expect(table.reads).toHaveLength(2);
  });

  it('knows a select key by its label or its value', async () => {
    const { target } = setup('select', [rowOf('r1', { k: 'opt_1' })], [{ label: 'Gold', value: 'opt_1' }]);
    expect(await new KeySnapshot(target).present(['gold', 'opt_1', 'silver'])).toEqual(new Set(['gold', 'opt_1']));
  });
});
