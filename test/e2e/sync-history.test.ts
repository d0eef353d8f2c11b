import { describe, expect } from 'vitest';
import { sqlRows } from './diff-support.js';
import { test as it, type Harness, useOpenOfEachTest } from '../helpers/emulator-fixture.js';

// The history's edges: --prune-history, and the names of the history tables and macros.

const openHarness = useOpenOfEachTest();

async function table(b: Harness, name: string): Promise<string> {
  const created = await b.admin<{ table: { id: string } }>('POST', '/tables', {
    workspace: 'Sales',
    name,
    fields: [{ label: 'Name', type: 'text' }],
  });
  await b.admin('POST', `/tables/${created.table.id}/rows`, {
    rows: Array.from({ length: 5 }, (_, i) => ({ cells: { Name: `${name} ${i}` } })),
  });
  return created.table.id;
}

describe('tds sync --prune-history', () => {
  it('drops the versions replaced longer ago than DURATION (on the service clock), says how many; nothing otherwise', async () => {
    const harness = await openHarness();
    const id = await table(harness, 'Deals');
    expect((await harness.tds(['sync', id])).code).toBe(0);
    const rows = await sqlRows(harness, 'SELECT "_id" FROM deals');
    for (const row of rows.slice(0, 3))
      await harness.admin('PATCH', `/tables/${id}/rows/${String(row._id)}`, { cells: { Name: 'edited' } });
    const json = async (args: string[]): Promise<{ pruned: number | null; stderr: string }> => {
      const result = await harness!.tds(['sync', ...args]);
      expect(result.code, result.stderr).toBe(0);
      return {
        pruned: (JSON.parse(result.stdout) as { tables: Array<{ pruned: number | null }> }).tables[0]!.pruned,
        stderr: result.stderr,
      };
    };
    expect((await json(['--full', '--json'])).pruned).toBeNull();
    const versions = async (): Promise<number> => Number((await sqlRows(harness!, 'SELECT count(*) AS n FROM deals__history'))[0]!.n);
    expect(await versions()).toBe(3);

    // two days on the service's clock: replaced two days ago
    await harness.admin('POST', '/clock', { advanceMs: 2 * 86_400_000 });
    expect((await json(['--prune-history', '3d', '--json'])).pruned).toBe(0);
    expect(await versions()).toBe(3);
    const pruned = await harness.tds(['sync', '--prune-history', '36h']);
    expect(pruned.code, pruned.stderr).toBe(0);
    expect(pruned.stderr).toMatch(/deals .* 3 old versions pruned/);
    expect(await versions()).toBe(0);
    // the current rows are untouched
    expect(await sqlRows(harness, 'SELECT count(*) AS n FROM deals')).toEqual([{ n: 5 }]);

    const bad = await harness.tds(['sync', '--prune-history', 'a while']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--prune-history "a while" is not a duration/);
  });

  it('keeps what a sync replaced until the lake of the table has its partition (simulator seed 70)', async () => {
    const harness = await openHarness();
    const id = await table(harness, 'Deals');
    const lake = `${harness.dir}/lake`;
    expect((await harness.tds(['sync', id, '--lake', lake])).code).toBe(0);
    const [gone] = await sqlRows(harness, 'SELECT "_id" FROM deals LIMIT 1');
    await harness.admin('DELETE', `/tables/${id}/rows/${String(gone!._id)}`);
    // a sync without --lake finds the row gone (as `tds check` and `tds stats` sync before they read)
    expect((await harness.tds(['sync', id, '--full'])).code).toBe(0);
    await harness.admin('POST', '/clock', { advanceMs: 10_000 });
    const pruning = async (args: string[]): Promise<number> => {
      const result = await harness.tds(['sync', id, '--prune-history', '1s', '--json', ...args]);
      expect(result.code, result.stderr).toBe(0);
      return (JSON.parse(result.stdout) as { tables: Array<{ pruned: number }> }).tables[0]!.pruned;
    };
    // the lake lacks the sync that found it gone: its tombstone is written from the history first
    expect(await pruning(['--lake', lake])).toBe(0);
    const tombstones = await sqlRows(harness, 'SELECT sync_id, rows FROM _tds_lake ORDER BY sync_id');
    expect(tombstones.map((row) => [Number(row.sync_id), Number(row.rows)])).toEqual([
      [1, 5],
      [2, 1],
      [3, 0],
    ]);
    // the lake has it now: the next prune drops it
    expect(await pruning([])).toBe(1);
  });
});

describe('a pruned history says what it no longer knows', () => {
  it('a diff span or a macro moment before the versions kept is exit 2 naming the earliest it answers for', async () => {
    const harness = await openHarness();
    const id = await table(harness, 'Deals');
    // the stream of changes starts here: what a sync replaced is kept until --changes has said it
    expect((await harness.tds(['sync', id, '--changes'])).code).toBe(0);
    const rows = await sqlRows(harness, 'SELECT "_id" FROM deals');
    for (const row of rows.slice(0, 3))
      await harness.admin('PATCH', `/tables/${id}/rows/${String(row._id)}`, { cells: { Name: 'edited' } });
    const before = (await sqlRows(harness, 'SELECT max("_updatedAt") AS t FROM deals'))[0]!.t as string;
    await harness.admin('POST', '/clock', { advanceMs: 10_000 });
    const full = await harness.tds(['sync', id, '--full', '--changes', '--prune-history', '1s']);
    expect(full.code, full.stderr).toBe(0);
    const changes = full.stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { change: string; before: Record<string, unknown>; after: Record<string, unknown> });
    expect(changes.map((record) => [record.change, /^Deals \d$/.test(String(record.before.Name)), record.after.Name])).toEqual(
      Array(3).fill(['updated', true, 'edited']),
    );
    expect(changes).toHaveLength(3);
    // delivered: the next prune drops them
    const pruned = await harness.tds(['sync', id, '--prune-history', '1s', '--json']);
    expect(pruned.code, pruned.stderr).toBe(0);
    expect((JSON.parse(pruned.stdout) as { tables: Array<{ pruned: number }> }).tables[0]!.pruned).toBe(3);
    const syncs = (await sqlRows(harness, 'SELECT sync_id FROM _tds_syncs ORDER BY sync_id')).map((row) => Number(row.sync_id));
    const [, second] = syncs;

    const diff = await harness.tds(['diff', 'deals', '--since', `sync:${syncs[0]}`, '--until', `sync:${second}`]);
    expect(diff.code).toBe(2);
    expect(diff.stdout).toBe('');
    expect(diff.stderr).toMatch(new RegExp(`--since sync:${syncs[0]} .* is before what the history of deals still knows`));
    expect(diff.stderr).toMatch(new RegExp(`sync:${second} and later`));
    const early = await harness.tds(['diff', 'deals', '--since', new Date(Date.parse(before) - 1000).toISOString()]);
    expect(early.code).toBe(2);
    // from the horizon on, the diff answers: what the sync that replaced them brought
    const known = await harness.tds(['diff', 'deals', '--since', `sync:${second}`, '--format', 'ndjson']);
    expect(known.code, known.stderr).toBe(0);
    const atSync = await harness.tds(['sql', `SELECT count(*) AS n FROM deals_at_sync(${syncs[0]})`]);
    expect(atSync.code).toBe(2);
    expect(atSync.stderr).toMatch(new RegExp(`deals: sync ${syncs[0]} is before what its history still knows .* from sync ${second} on`));
    const at = await harness.tds(['sql', `SELECT count(*) AS n FROM deals_at('${new Date(Date.parse(before) - 1000).toISOString()}')`]);
    expect(at.code).toBe(2);
    expect(await sqlRows(harness, `SELECT count(*) AS n FROM deals_at_sync(${second})`)).toEqual([{ n: 5 }]);
  });
});

describe('the history tables and macros: their names', () => {
  it('a name another mirror table holds gets the usual suffix; _tds_tables lists them all', async () => {
    const harness = await openHarness();
    const dealsAt = await table(harness, 'Deals At');
    const deals = await table(harness, 'Deals');
    // Deals At first: its table is deals_at, which the macro T_at of Deals would be called
    expect((await harness.tds(['sync', dealsAt])).code).toBe(0);
    expect((await harness.tds(['sync', deals])).code).toBe(0);
    expect(
      await sqlRows(harness, 'SELECT mirror_table, history_table, at_sync_macro, at_macro FROM _tds_tables ORDER BY mirror_table'),
    ).toEqual([
      { mirror_table: 'deals', history_table: 'deals__history', at_sync_macro: 'deals_at_sync', at_macro: 'deals_at_2' },
      { mirror_table: 'deals_at', history_table: 'deals_at__history', at_sync_macro: 'deals_at_at_sync', at_macro: 'deals_at_at' },
    ]);
    expect(await sqlRows(harness, 'SELECT count(*) AS n FROM deals_at_2(now())')).toEqual([{ n: 5 }]);
    expect(await sqlRows(harness, 'SELECT count(*) AS n FROM deals_at')).toEqual([{ n: 5 }]);
    // and a new table takes none of these names: "Deals At Sync" is not deals_at_sync
    const third = await table(harness, 'Deals At Sync');
    const result = await harness.tds(['sync', third, '--json']);
    expect((JSON.parse(result.stdout) as { tables: Array<{ mirrorTable: string }> }).tables[0]!.mirrorTable).toBe('sales_deals_at_sync');
  });
});
