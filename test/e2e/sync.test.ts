import { mkdir, readdir } from 'node:fs/promises';
import { basename } from 'node:path';
import { describe, expect } from 'vitest';
import { everyTypeCells, everyTypeTable, mirrorRows } from '../mirror/helpers.js';
import { addEveryTypeRows, DAY, expectMirrorEqualsService } from './sync-support.js';
import { test as it, useOpenOfEachTest } from '../helpers/emulator-fixture.js';
import { sqlJson } from '../helpers/sql-json.js';

// `tds sync` end to end: the command program against an emulator whose data the tests change through its
// admin routes, then the mirror compared with a fresh export of the same table, value by value.

const openHarness = useOpenOfEachTest();

describe('tds sync: a mirror equal to the service', () => {
  it('first sync is full, with every column type (values that do not fit are NULL and counted)', async () => {
    const harness = await openHarness();
    const table = await everyTypeTable(harness);
    await addEveryTypeRows(harness, table.id, { count: 150, from: 1, createdAgoMs: (i) => (150 - i) * 3_600_000 });
    // the spill folder DuckDB makes beside the mirror when a sync outgrows its memory, and leaves empty
    await mkdir(`${harness.db}.tmp`);
    const result = await harness.tds(['sync', 'Every Type', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout) as { tables: Array<Record<string, unknown>> };
    expect(summary.tables).toMatchObject([
      { mirrorTable: 'every_type', mode: 'full', complete: true, rowsRead: 150, inserted: 150, updated: 0, deleted: 0 },
    ]);
    // Amount every 7th row and Due every 11th row hold text that is not a number or a date
    expect(summary.tables[0]!.unfit).toBe(Math.floor(150 / 7) + Math.floor(150 / 11));
    await expectMirrorEqualsService(harness, table.id);
    // the mirror and nothing beside it: no spill folder (FILE.tmp) or write-ahead log left
    expect((await readdir(harness.dir)).filter((name) => name.startsWith(basename(harness.db)))).toEqual([basename(harness.db)]);
    const columns = await sqlJson<{ column_name: string; data_type: string }>(
      harness,
      "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'every_type'",
    );
    expect(columns.map((column) => `${column.column_name} ${column.data_type}`)).toEqual(
      expect.arrayContaining([
        '_id VARCHAR',
        '_createdAt TIMESTAMP WITH TIME ZONE',
        'Amount DOUBLE',
        'Active BOOLEAN',
        'Due TIMESTAMP WITH TIME ZONE',
        'Tags VARCHAR[]',
        'Address JSON',
        'Enrich JSON',
        'Enrich.status VARCHAR',
        'Enrich.error VARCHAR',
        'Owner JSON',
        '_truncated VARCHAR[]',
      ]),
    );
    const cut = await harness.tds([
      'sql',
      "SELECT count(*) AS n FROM every_type WHERE list_contains(_truncated, 'Notes')",
      '--format',
      'csv',
    ]);
    expect(cut.stdout).toBe(`n\n${Math.floor(150 / 13)}\n`);
  });

  it('after adds, updates, deletes and schema changes: incremental reads what is new, --full makes it equal again', async () => {
    const harness = await openHarness();
    const table = await everyTypeTable(harness);
    const ids = await addEveryTypeRows(harness, table.id, { count: 60, from: 1, createdAgoMs: (i) => 30 * DAY - (i * DAY) / 4 });
    expect((await harness.tds(['sync', table.id])).code).toBe(0);

    // schema: a field added, one relabelled, one removed (a retype has its own test)
    const field = (label: string) => table.fields.find((candidate) => candidate.label === label)!.id;
    await harness.admin('POST', `/tables/${table.id}/fields`, { label: 'Region', type: 'text' });
    await harness.admin('PATCH', `/tables/${table.id}/fields/${field('Notes')}`, { label: 'Remarks' });
    await harness.admin('DELETE', `/tables/${table.id}/fields/${field('Logo')}`);
    // data: new rows, old rows changed and deleted
    const fresh = (
      await harness.admin<{ rows: Array<{ id: string }> }>('POST', `/tables/${table.id}/rows`, {
        rows: Array.from({ length: 12 }, (_, k) => {
          const { Logo: _logo, Notes: notes, ...cells } = everyTypeCells(100 + k);
          return { cells: { ...cells, Remarks: notes, Region: 'EMEA' } };
        }),
      })
    ).rows.map((row) => row.id);
    await harness.admin('PATCH', `/tables/${table.id}/rows/${ids[3]}`, { cells: { Name: 'Renamed long ago', Amount: 42 } });
    await harness.admin('POST', `/tables/${table.id}/rows/delete`, { ids: [ids[5], ids[6]] });

    const incremental = await harness.tds(['sync', '--json']);
    expect(incremental.code, incremental.stderr).toBe(0);
    expect(incremental.stderr).toMatch(/every_type: column "Region" added \(text\)/);
    expect(incremental.stderr).toMatch(/every_type: column "Notes" renamed to "Remarks"/);
    expect(incremental.stderr).toMatch(/every_type: field "Logo" was removed from the table; its column "Logo" is kept/);
    const summary = JSON.parse(incremental.stdout) as { tables: Array<Record<string, unknown>> };
    // one page holds the new rows and every old one: the rows it no longer has are deleted, the edit is seen
    expect(summary.tables[0]).toMatchObject({ mode: 'incremental', inserted: 12, updated: 1, deleted: 2, requests: 2 });
    const mirror = await mirrorRows(harness, 'every_type');
    for (const id of fresh) expect(mirror.some((row) => row._id === id)).toBe(true);
    await expectMirrorEqualsService(harness, table.id);

    const full = await harness.tds(['sync', '--full', '--json']);
    expect(full.code, full.stderr).toBe(0);
    expect(JSON.parse(full.stdout).tables[0]).toMatchObject({ mode: 'full', inserted: 0, deleted: 0 });
    const after = await mirrorRows(harness, 'every_type');
    expect(after.find((row) => row._id === ids[3])).toMatchObject({ Name: 'Renamed long ago', Amount: 42 });
    // the removed field's column is kept with its values (NULL in rows created since)
    expect(after.filter((row) => row.Logo !== null).map((row) => row._id)).toEqual(
      after.filter((row) => !fresh.includes(row._id as string)).map((row) => row._id),
    );
    await expectMirrorEqualsService(harness, table.id);
  });

  it.each([
    ['phone_number to number', 'Phone', 'number', /converted; \d+ values that do not fit are NULL now/],
    ['number to text (a cast would write 1.5 as "1.5" but 3 as "3.0")', 'Amount', 'text', /converted/],
  ])(
    "a field retyped from %s: the sync that sees it is a full pass, and every row holds the service's value",
    async (_what, label, type, converted) => {
      const harness = await openHarness();
      const table = await everyTypeTable(harness);
      await addEveryTypeRows(harness, table.id, { count: 150, from: 1, createdAgoMs: (i) => 30 * DAY - i * 60_000 });
      expect((await harness.tds(['sync', table.id])).code).toBe(0);
      const fieldId = table.fields.find((field) => field.label === label)!.id;
      await harness.admin('PATCH', `/tables/${table.id}/fields/${fieldId}`, { type });

      const retyped = await harness.tds(['sync', '--json']);
      expect(retyped.code, retyped.stderr).toBe(0);
      expect(retyped.stderr).toMatch(new RegExp(`every_type: column "${label}" retyped from \\w+ to ${type}: ${converted.source}`));
      expect(JSON.parse(retyped.stdout).tables[0]).toMatchObject({ mode: 'full', complete: true, rowsRead: 150, deleted: 0 });
      await expectMirrorEqualsService(harness, table.id);
      // and the sync after it is incremental again
      const next = await harness.tds(['sync', '--json']);
      expect(JSON.parse(next.stdout).tables[0]).toMatchObject({ mode: 'incremental' });
    },
  );

  it('an idle incremental sync costs one row request; rows whose actions were running are read again until they settle', async () => {
    // a step every minute: the cells are still on their way at the first sync, until the test settles them
    const harness = await openHarness({ actionDelayMs: 60_000 });
    const table = await everyTypeTable(harness);
    await addEveryTypeRows(harness, table.id, { count: 150, from: 1, createdAgoMs: (i) => 10 * DAY - i * 60_000 });
    expect((await harness.tds(['sync', table.id])).code).toBe(0);
    // the Enrich action ran on every row as it arrived: statuses were queued or running at the first sync
    const pending = await harness.tds([
      'sql',
      "SELECT count(*) AS n FROM every_type WHERE \"Enrich.status\" IN ('queued', 'running', 'waiting')",
      '--format',
      'csv',
    ]);
    expect(pending.stdout).not.toBe('n\n0\n');
    await harness.admin('POST', '/actions/finish');
    const later = await harness.tds(['sync', '--json']);
    expect(JSON.parse(later.stdout).tables[0]).toMatchObject({ mode: 'incremental', updated: 150 });
    await expectMirrorEqualsService(harness, table.id);

    const before = harness.emu.requestLog.length;
    const idle = await harness.tds(['sync', '--json']);
    const rowRequests = harness.emu.requestLog.slice(before).filter((entry) => entry.bucket === 'rows');
    expect(JSON.parse(idle.stdout).tables[0]).toMatchObject({ mode: 'incremental', inserted: 0, updated: 0, deleted: 0 });
    expect(rowRequests).toHaveLength(1);
  });
});
