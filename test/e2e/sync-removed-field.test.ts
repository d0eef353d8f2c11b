import { describe, expect } from 'vitest';
import { everyTypeCells, everyTypeTable } from '../mirror/helpers.js';
import { test as it, type Harness, type HarnessOptions } from '../helpers/emulator-fixture.js';

// A removed field's column is kept with the values it had when the field was removed, whatever is
// synced after (issue 20, item 8).

let openBench: (options?: HarnessOptions) => Promise<Harness>;
it.beforeEach(({ open }) => {
  openBench = open;
});

async function column(b: Harness, key: string): Promise<Map<string, unknown>> {
  const result = await b.tds(['sql', `SELECT _id, "${key}" AS v FROM every_type`, '--format', 'ndjson']);
  expect(result.code, result.stderr).toBe(0);
  const rows = result.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { _id: string; v: unknown });
  return new Map(rows.map((row) => [row._id, row.v]));
}

describe('tds sync: a removed field', () => {
  it('its kept column keeps its values through incremental syncs that read rows again and through --full', async () => {
    const bench = await openBench();
    const table = await everyTypeTable(bench);
    const DAY = 86_400_000;
    const created = await bench.admin<{ rows: Array<{ id: string }> }>('POST', `/tables/${table.id}/rows`, {
      rows: Array.from({ length: 150 }, (_, i) => ({
        cells: everyTypeCells(i),
        createdAt: new Date(Date.now() - (150 - i) * DAY).toISOString(),
      })),
    });
    const ids = created.rows.map((row) => row.id);
    expect((await bench.tds(['sync', table.id])).code).toBe(0);
    const notes = await column(bench, 'Notes');
    const enrich = await column(bench, 'Enrich.status');
    expect([...notes.values()].filter((value) => value !== null)).toHaveLength(150);

    const field = (label: string): string => table.fields.find((candidate) => candidate.label === label)!.id;
    await bench.admin('DELETE', `/tables/${table.id}/fields/${field('Notes')}`);
    await bench.admin('DELETE', `/tables/${table.id}/fields/${field('Enrich')}`);
    // rows edited (the newest, which an incremental sync reads again) and new rows
    for (const id of ids.slice(-20)) await bench.admin('PATCH', `/tables/${table.id}/rows/${id}`, { cells: { Name: `edited ${id}` } });
    await bench.admin('POST', `/tables/${table.id}/rows`, { rows: [{ cells: { Name: 'after the removal' } }] });

    const incremental = await bench.tds(['sync', '--json']);
    expect(incremental.code, incremental.stderr).toBe(0);
    expect(JSON.parse(incremental.stdout).tables[0]).toMatchObject({ mode: 'incremental', inserted: 1, updated: 20 });
    const kept = (values: Map<string, unknown>, before: Map<string, unknown>): void => {
      for (const [id, value] of before) expect(values.get(id), id).toEqual(value);
      expect(values.size).toBe(before.size + 1);
    };
    kept(await column(bench, 'Notes'), notes);
    kept(await column(bench, 'Enrich.status'), enrich);

    const full = await bench.tds(['sync', '--full', '--json']);
    expect(full.code, full.stderr).toBe(0);
    kept(await column(bench, 'Notes'), notes);
    kept(await column(bench, 'Enrich.status'), enrich);
  });
});
