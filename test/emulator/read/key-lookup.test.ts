import { describe, expect, it } from 'vitest';
import { checkFilters, compileFilters } from '../../../src/emulator/read/filter-match.js';
import { readPage } from '../../../src/emulator/read/read-routes.js';
import { RowList } from '../../../src/emulator/store/row-list.js';
import type { FieldRec, StoredRow } from '../../../src/emulator/store/model.js';

// A push by key looks its keys up in queries of 97 `=` rules packed in an `or` group with three nested
// `or` groups (the most docs/service-api.md 4.5 allows). Such a query is one set of keys: the emulator
// reads a row's key cell once per query, not once per group (on a table of 250,000 rows, four reads a
// row made each of the thousand queries of 100,000 e-mail keys cost 150 ms of the emulator's CPU).

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

const matching = (rows: RowList, filters: unknown): string[] => {
  const checked = checkFilters(filters, [MAIL, NAME]);
  const match = compileFilters(checked.group, 0);
  return readPage(rows, { order: 'id', limit: 100, match }).rows.map((row) => row.id);
};

describe('key lookups in the emulator', () => {
  it('reads each row’s key cell once for a query of 97 keys in nested or groups, and finds the keys in any case', () => {
    const { rows, reads } = countedRows();
    const keys = Array.from({ length: 97 }, (_, k) => mail(k * 3).toLowerCase());
    const found = matching(rows, packed(keys));
    expect(found).toHaveLength(97);
    expect(found[0]).toBe('r_00000');
    expect(found.at(-1)).toBe('r_00288');
    expect(reads()).toBe(ROWS);
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
