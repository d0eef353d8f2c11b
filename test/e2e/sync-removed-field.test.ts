import { describe, expect } from 'vitest';
import { everyTypeTable } from '../mirror/helpers.js';
import { addEveryTypeRows, DAY } from './sync-support.js';
import { addRows, makeTable } from '../helpers/admin-tables.js';
import { test as it, type Harness, useOpenOfEachTest } from '../helpers/emulator-fixture.js';

// A removed field's column is kept with the values it had when the field was removed, whatever is
// synced after (issue 20, item 8).

const openHarness = useOpenOfEachTest();

async function column(b: Harness, key: string): Promise<Map<string, unknown>> {
  const result = await b.tds(['sql', `SELECT _id, "${key}" AS v FROM every_type`, '--format', 'ndjson']);
  expect(result.code, result.stderr).toBe(0);
  const rows = result.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { _id: string; v: unknown });
  return new Map(rows.map((row) => [row._id, row.v]));
}

/** The rows whose `_truncated` names `key`. */
async function cutIn(b: Harness, key: string): Promise<string[]> {
  const result = await b.tds([
    'sql',
    `SELECT _id FROM every_type WHERE list_contains(_truncated, '${key}') ORDER BY _id`,
    '--format',
    'csv',
  ]);
  expect(result.code, result.stderr).toBe(0);
  return result.stdout.split('\n').slice(1).filter(Boolean);
}

describe('tds sync: a removed field', () => {
  it('its kept column keeps its values, and _truncated names those cut, through incremental syncs that read rows again and through --full', async () => {
    const harness = await openHarness();
    const table = await everyTypeTable(harness);
    const ids = await addEveryTypeRows(harness, table.id, { count: 150, from: 0, createdAgoMs: (k) => (150 - k) * DAY });
    expect((await harness.tds(['sync', table.id])).code).toBe(0);
    const notes = await column(harness, 'Notes');
    const enrich = await column(harness, 'Enrich.status');
    expect([...notes.values()].filter((value) => value !== null)).toHaveLength(150);
    const cut = await cutIn(harness, 'Notes');
    expect(cut.length).toBeGreaterThan(0);

    const field = (label: string): string => table.fields.find((candidate) => candidate.label === label)!.id;
    await harness.admin('DELETE', `/tables/${table.id}/fields/${field('Notes')}`);
    await harness.admin('DELETE', `/tables/${table.id}/fields/${field('Enrich')}`);
    // rows edited (the newest, which an incremental sync reads again) and new rows
    for (const id of ids.slice(-20)) await harness.admin('PATCH', `/tables/${table.id}/rows/${id}`, { cells: { Name: `edited ${id}` } });
    await harness.admin('POST', `/tables/${table.id}/rows`, { rows: [{ cells: { Name: 'after the removal' } }] });

    const incremental = await harness.tds(['sync', '--json']);
    expect(incremental.code, incremental.stderr).toBe(0);
    expect(JSON.parse(incremental.stdout).tables[0]).toMatchObject({ mode: 'incremental', inserted: 1, updated: 20 });
    const kept = (values: Map<string, unknown>, before: Map<string, unknown>): void => {
      for (const [id, value] of before) expect(values.get(id), id).toEqual(value);
      expect(values.size).toBe(before.size + 1);
    };
    kept(await column(harness, 'Notes'), notes);
    kept(await column(harness, 'Enrich.status'), enrich);
    expect(await cutIn(harness, 'Notes')).toEqual(cut);

    const full = await harness.tds(['sync', '--full', '--json']);
    expect(full.code, full.stderr).toBe(0);
    kept(await column(harness, 'Notes'), notes);
    kept(await column(harness, 'Enrich.status'), enrich);
    expect(await cutIn(harness, 'Notes')).toEqual(cut);
  });
});

describe('a field removed and another added with its label', () => {
  it('the live field keeps the label in every output (export, mirror, diff, stats); the kept column takes " (2)"', async () => {
    const b = await openHarness();
    const table = await makeTable(b, 'Flags', [
      { label: 'Name', type: 'text' },
      { label: 'Flag', type: 'boolean' },
    ]);
    const tableId = table.id;
    const rowIds = await addRows(b, tableId, [{ cells: { Name: 'a', Flag: true } }, { cells: { Name: 'b', Flag: false } }]);
    expect((await b.tds(['sync', tableId])).code).toBe(0);
    await b.admin('DELETE', `/tables/${tableId}/fields/${table.fieldId('Flag')}`);
    await b.admin('POST', `/tables/${tableId}/fields`, { label: 'Flag', type: 'text' });
    for (const [i, rowId] of rowIds.entries()) await b.admin('PATCH', `/tables/${tableId}/rows/${rowId}`, { cells: { Flag: `new ${i}` } });
    const synced = await b.tds(['sync', tableId]);
    expect(synced.code, synced.stderr).toBe(0);
    expect(synced.stderr).toMatch(/column "Flag" renamed to "Flag \(2\)"/);

    const exported = await b.tds(['rows', tableId, '--format', 'ndjson']);
    const exportFlags = exported.stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => (JSON.parse(line) as Record<string, unknown>).Flag)
      .sort();
    expect(exportFlags).toEqual(['new 0', 'new 1']);
    const mirror = await b.tds(['sql', 'SELECT "Flag", "Flag (2)" FROM flags ORDER BY "Flag"', '--format', 'ndjson']);
    expect(
      mirror.stdout
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as unknown),
    ).toEqual([
      { Flag: 'new 0', 'Flag (2)': true },
      { Flag: 'new 1', 'Flag (2)': false },
    ]);
    const diff = await b.tds(['diff', 'flags', '--format', 'ndjson']);
    const afters = diff.stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => (JSON.parse(line) as { after: Record<string, unknown> }).after.Flag)
      .sort();
    expect(afters).toEqual(['new 0', 'new 1']);
    const stats = await b.tds(['stats', 'flags', '--no-sync', '--format', 'json']);
    expect(stats.code, stats.stderr).toBe(0);
    // stats profiles the live fields: Flag is the text field
    const columns = (JSON.parse(stats.stdout) as { columns: Array<{ key: string; type: string }> }).columns;
    expect(columns.filter((column) => column.key.startsWith('Flag')).map((column) => [column.key, column.type])).toEqual([
      ['Flag', 'text'],
    ]);
  });
});
