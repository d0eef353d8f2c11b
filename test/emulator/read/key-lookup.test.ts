import { describe, expect, it } from 'vitest';
import { checkFilters, compileFilters } from '../../../src/emulator/read/filter-match.js';
import { keyedRows } from '../../../src/emulator/read/key-index.js';
import { readPage } from '../../../src/emulator/read/read-routes.js';
import { RowList } from '../../../src/emulator/store/row-list.js';
import type { FieldRec, StoredRow } from '../../../src/emulator/store/model.js';

// A push by key looks its keys up in queries of 97 `=` rules packed in an `or` group with three nested
// `or` groups (the most docs/service-api.md 4.5 allows). The service answers them from an index, and so
// does the emulator: a query reads the rows it finds, not the table (a scan of 250,000 rows made each
// of the thousand queries of 100,000 e-mail keys cost 150 ms of the emulator's CPU). The answer is the
// scan's: the index follows the rows, and what a group means stays.

const MAIL: FieldRec = { id: 'f_mail', label: 'Mail', name: 'mail', type: 'email' } as FieldRec;
const NAME: FieldRec = { id: 'f_name', label: 'Name', name: 'name', type: 'text' } as FieldRec;
const ROWS = 300;
const mail = (i: number): string => `Person${i}@Example.com`;

/** Rows whose key cell counts its reads. */
function countedRows(): { rows: RowList; reads: () => number } {
  let reads = 0;
  const rows = Array.from({ length: ROWS }, (_, i): StoredRow => {
    const cells = { [NAME.id]: { value: i % 2 === 0 ? 'even' : 'odd' } };
    Object.defineProperty(cells, MAIL.id, {
      enumerable: true,
      get: () => {
        reads += 1;
        return { value: mail(i) };
      },
    });
    return { id: `r_${String(i).padStart(5, '0')}`, createdAt: i, updatedAt: i, createdByUserId: null, cells } as StoredRow;
  });
  return { rows: new RowList(rows), reads: () => reads };
}

/** 97 `=` rules: 22 in the top `or` group, then three nested `or` groups of 25. */
function packed(keys: readonly string[]): unknown {
  const rules = keys.map((value) => ({ fieldId: MAIL.id, operator: '=', value }));
  return {
    combinator: 'or',
    rules: [...rules.slice(0, 22), ...[22, 47, 72].map((start) => ({ combinator: 'or', rules: rules.slice(start, start + 25) }))],
  };
}

/** The IDs of a query's first page, as the emulator's query route finds them (from the index when it can). */
const matching = (rows: RowList, filters: unknown): string[] => {
  const checked = checkFilters(filters, [MAIL, NAME]);
  const match = compileFilters(checked.group, 0);
  return readPage(keyedRows(rows, checked.group) ?? rows, { order: 'id', limit: 100, match }).rows.map((row) => row.id);
};

const plainRow = (id: string, cells: Record<string, string>): StoredRow =>
  ({
    id,
    createdAt: 0,
    updatedAt: 0,
    createdByUserId: null,
    cells: Object.fromEntries(Object.entries(cells).map(([field, value]) => [field, { value }])),
  }) as StoredRow;

describe('key lookups in the emulator', () => {
  it('answers a query of 97 keys in nested or groups from an index: later queries read only the rows they find', () => {
    const { rows, reads } = countedRows();
    const keys = Array.from({ length: 97 }, (_, k) => mail(k * 3).toLowerCase());
    const found = matching(rows, packed(keys));
    expect(found).toHaveLength(97);
    expect(found[0]).toBe('r_00000');
    expect(found.at(-1)).toBe('r_00288');
    // the first query builds the index (each row's cell once), then tests the 97 rows it found
    expect(reads()).toBe(ROWS + 97);
    const others = Array.from({ length: 97 }, (_, k) => mail(k * 3 + 1));
    expect(matching(rows, packed(others))).toHaveLength(97);
    expect(reads()).toBe(ROWS + 2 * 97);
  });

  it('follows the rows: added, edited and removed rows are found as a scan finds them; a search or another rule scans', () => {
    const rows = new RowList([plainRow('r_1', { [MAIL.id]: 'a@x.example' }), plainRow('r_2', { [MAIL.id]: 'b@x.example' })]);
    const keys = (...values: string[]) => ({
      combinator: 'or',
      rules: values.map((value) => ({ fieldId: MAIL.id, operator: '=', value })),
    });
    expect(matching(rows, keys('A@X.example', 'c@x.example'))).toEqual(['r_1']);
    rows.add([plainRow('r_3', { [MAIL.id]: 'C@x.example' })]);
    expect(matching(rows, keys('a@x.example', 'c@x.example'))).toEqual(['r_1', 'r_3']);
    rows.edit('r_1')!.cells[MAIL.id] = { value: 'd@x.example' };
    expect(matching(rows, keys('d@x.example', 'c@x.example'))).toEqual(['r_1', 'r_3']);
    expect(matching(rows, keys('a@x.example'))).toEqual([]);
    rows.remove('r_3');
    expect(matching(rows, keys('c@x.example', 'b@x.example'))).toEqual(['r_2']);
    // only a query of keys alone is answered from the index
    const mixed = { combinator: 'or', rules: [...keys('b@x.example').rules, { fieldId: MAIL.id, operator: 'contains', value: 'D@' }] };
    expect(keyedRows(rows, checkFilters(mixed, [MAIL, NAME]).group)).toBeUndefined();
    expect(matching(rows, mixed)).toEqual(['r_1', 'r_2']);
  });

  it('keeps what groups mean: a nested and group stays one, an empty nested group matches every row', () => {
    const { rows } = countedRows();
    const andGroup = {
      combinator: 'or',
      rules: [
        { fieldId: MAIL.id, operator: '=', value: mail(1) },
        {
          combinator: 'or',
          rules: [
            { fieldId: MAIL.id, operator: '=', value: mail(2) },
            ...[4, 5].map((i) => ({
              combinator: 'and',
              rules: [
                { fieldId: MAIL.id, operator: '=', value: mail(i) },
                { fieldId: NAME.id, operator: '=', value: 'ODD' },
              ],
            })),
          ],
        },
      ],
    };
    expect(matching(rows, andGroup)).toEqual(['r_00001', 'r_00002', 'r_00005']);
    const empty = {
      combinator: 'or',
      rules: [
        { fieldId: MAIL.id, operator: '=', value: mail(1) },
        { combinator: 'or', rules: [] },
      ],
    };
    expect(matching(rows, empty)).toHaveLength(100);
    const and = {
      combinator: 'and',
      rules: [
        { fieldId: MAIL.id, operator: '=', value: mail(1) },
        { combinator: 'or', rules: [] },
      ],
    };
    expect(matching(rows, and)).toEqual(['r_00001']);
  });
});
