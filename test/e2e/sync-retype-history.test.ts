import { describe, expect } from 'vitest';
import { diffRecords, sqlRows } from './diff-support.js';
import { expectMirrorEqualsService, syncTables } from './sync-support.js';
import { addRows, makeTable } from '../helpers/admin-tables.js';
import { test as it } from '../helpers/emulator-fixture.js';

// A retype never rewrites history: retyped there and back, every version the mirror kept gives back
// what the service held, value by value (T_at_sync, T_at, tds diff, --changes), and a value compared
// across a retype is a change only when the service's value changed.

describe('a field retyped and back: history as the service held it', () => {
  it('T_at_sync, T_at and tds diff give back each value across text → number → text and number → text', async ({ open }) => {
    const b = await open();
    const { id: tableId, fieldId: field } = await makeTable(b, 'Every Type', [
      { label: 'Code', type: 'text' },
      { label: 'Num', type: 'number' },
    ]);
    const rowIds = await addRows(b, tableId, [
      { cells: { Code: 'abc', Num: 2 } },
      { cells: { Code: 'x', Num: 5 } },
      { cells: { Code: 'same', Num: 1.5 } },
    ]);
    const [one, two, three] = rowIds as [string, string, string];
    const [first] = await syncTables(b, [tableId]);
    const afterFirst = (await sqlRows(b, 'SELECT max("_updatedAt") AS t FROM every_type'))[0]!.t as string;
    await b.admin('PATCH', `/tables/${tableId}/rows/${one}`, { cells: { Code: 'def', Num: 3 } });
    await b.admin('PATCH', `/tables/${tableId}/rows/${two}`, { cells: { Code: 'y' } });
    const [second] = await syncTables(b, [tableId, '--full']);
    await b.admin('PATCH', `/tables/${tableId}/fields/${field('Code')}`, { type: 'number' });
    await b.admin('PATCH', `/tables/${tableId}/fields/${field('Num')}`, { type: 'text' });
    await syncTables(b, [tableId, '--full']);
    await b.admin('PATCH', `/tables/${tableId}/fields/${field('Code')}`, { type: 'text' });
    const [last] = await syncTables(b, [tableId, '--full']);

    // the table after each sync, as the service held it (Num is text now: the service's 2 is "2")
    const at = async (from: string): Promise<Record<string, unknown>> =>
      Object.fromEntries(
        (await sqlRows(b, `SELECT "_id", "Code", "Num" FROM ${from}`)).map((row) => [row._id as string, [row.Code, row.Num]]),
      );
    const atFirst = { [one]: ['abc', '2'], [two]: ['x', '5'], [three]: ['same', '1.5'] };
    const atSecond = { [one]: ['def', '3'], [two]: ['y', '5'], [three]: ['same', '1.5'] };
    expect(await at(`every_type_at_sync(${first!.syncId})`)).toEqual(atFirst);
    expect(await at(`every_type_at('${afterFirst}')`)).toEqual(atFirst);
    expect(await at(`every_type_at_sync(${second!.syncId})`)).toEqual(atSecond);
    expect(await at(`every_type_at_sync(${last!.syncId})`)).toEqual(atSecond);
    expect(await at('every_type')).toEqual(atSecond);
    await expectMirrorEqualsService(b, tableId);

    // what changed between the first two syncs, and nothing across the retypes
    const diff = await diffRecords(b, ['every_type', '--since', `sync:${first!.syncId}`, '--until', `sync:${second!.syncId}`]);
    const values = (record: (typeof diff)[number]): unknown[] => [
      record._id,
      Object.fromEntries(Object.entries(record.before!).filter(([key]) => key !== '_updatedAt')),
      Object.fromEntries(Object.entries(record.after!).filter(([key]) => key !== '_updatedAt')),
    ];
    expect(diff.map(values).sort()).toEqual(
      [
        [one, { Code: 'abc', Num: '2' }, { Code: 'def', Num: '3' }],
        [two, { Code: 'x' }, { Code: 'y' }],
      ].sort(),
    );
    expect(await diffRecords(b, ['every_type', '--since', `sync:${second!.syncId}`, '--until', 'now'])).toEqual([]);
    expect(await diffRecords(b, ['every_type', '--since', `sync:${second!.syncId}`, '--until', `sync:${last!.syncId}`])).toEqual([]);
  });
});
