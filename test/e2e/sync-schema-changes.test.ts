import { describe, expect } from 'vitest';
import { sqlRows } from './diff-support.js';
import { expectMirrorEqualsService, syncTables } from './sync-support.js';
import { addRows, makeTable, type MadeTable } from '../helpers/admin-tables.js';
import { test as it, type Harness } from '../helpers/emulator-fixture.js';

// Issue 41, case 2: several schema changes of one table between two syncs (a retype with an added,
// relabelled or removed field, two retypes, a retype DuckDB cannot cast) are applied in one sync, and
// every later sync works; the mirror table and its history match the service's schema.

const ROWS = 30;

/** A table of A (text), N (number) and B (text) with 30 rows, synced once. */
async function syncedTable(harness: Harness): Promise<MadeTable> {
  const table = await makeTable(harness, 'Changes', [
    { label: 'A', type: 'text' },
    { label: 'N', type: 'number' },
    { label: 'B', type: 'text' },
  ]);
  await addRows(
    harness,
    table.id,
    Array.from({ length: ROWS }, (_, i) => ({ cells: { A: `a${i}`, N: i * 1.5, B: `b${i}` } })),
  );
  await syncTables(harness, [table.id]);
  return table;
}

type Change = (harness: Harness, table: MadeTable) => Promise<unknown>;
const retype =
  (label: string, type: string): Change =>
  (harness, { id, fieldId: field }) =>
    harness.admin('PATCH', `/tables/${id}/fields/${field(label)}`, { type });
const add =
  (label: string, type: string): Change =>
  (harness, { id }) =>
    harness.admin('POST', `/tables/${id}/fields`, { label, type });
const relabel =
  (label: string, to: string): Change =>
  (harness, { id, fieldId: field }) =>
    harness.admin('PATCH', `/tables/${id}/fields/${field(label)}`, { label: to });
const remove =
  (label: string): Change =>
  (harness, { id, fieldId: field }) =>
    harness.admin('DELETE', `/tables/${id}/fields/${field(label)}`);

describe('tds sync: several schema changes of one table in one sync (issue 41)', () => {
  it.for<[string, Change[], string[]]>([
    ['retype and an added field', [retype('N', 'text'), add('C', 'number')], ['A', 'N', 'B', 'C']],
    ['retype and a relabelled field', [retype('N', 'text'), relabel('B', 'B2')], ['A', 'N', 'B2']],
    ['retype and a removed field', [retype('N', 'text'), remove('B')], ['A', 'N', 'B']],
    ['an added field, a removed one and a retype', [add('C', 'number'), remove('B'), retype('N', 'text')], ['A', 'N', 'B', 'C']],
    ['two retypes', [retype('N', 'text'), retype('A', 'number')], ['A', 'N', 'B']],
    ['two retypes and an added field', [retype('N', 'text'), retype('A', 'number'), add('C', 'date')], ['A', 'N', 'B', 'C']],
    [
      'a retype DuckDB cannot cast (text to multi_select) and an added field',
      [retype('B', 'multi_select'), add('C', 'text')],
      ['A', 'N', 'B', 'C'],
    ],
    ['a retype to a date of text that is no date, and a relabel', [retype('A', 'date'), relabel('N', 'Amount')], ['A', 'Amount', 'B']],
  ])('%s: applied in one sync, and every later sync works', async ([, changes, keys], { open }) => {
    const harness = await open();
    const table = await syncedTable(harness);
    for (const change of changes) await change(harness, table);

    const [changed] = await syncTables(harness, []);
    expect(changed).toMatchObject({ complete: true });
    await expectMirrorEqualsService(harness, table.id, 'changes');
    const columns = async (from: string): Promise<string[]> =>
      (
        await sqlRows(
          harness,
          `SELECT column_name FROM duckdb_columns() WHERE table_name = '${from}' AND column_name NOT LIKE '%(% to sync %)'`,
        )
      )
        .map((row) => String(row.column_name))
        .filter((key) => !key.startsWith('_'))
        .sort();
    expect(await columns('changes')).toEqual([...keys].sort());
    expect(await columns('changes__history')).toEqual([...keys].sort());

    // the table as it was after the first sync is still there: 30 rows
    expect(await sqlRows(harness, 'SELECT count(*)::INTEGER AS n FROM changes_at_sync(1)')).toEqual([{ n: ROWS }]);
    for (const args of [[], ['--full']]) expect((await syncTables(harness, args))[0]).toMatchObject({ complete: true });
    await expectMirrorEqualsService(harness, table.id, 'changes');
  });
});
