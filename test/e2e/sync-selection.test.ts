import { describe, expect } from 'vitest';
import { sqlRows } from './diff-support.js';
import { syncTables } from './sync-support.js';
import { test as it, type Harness, useOpenOfEachTest } from '../helpers/emulator-fixture.js';

// Which tables `tds sync` mirrors (TABLE…, --workspace, --all, or the mirror's own), how their mirror
// tables are named, and what the _tds_* tables record of them: against the demo organization.

const openHarness = useOpenOfEachTest();

/** The demo organization's tables: name and workspace, in the service's order. */
async function serviceTables(b: Harness): Promise<Array<{ id: string; name: string; workspaceName: string }>> {
  const result = await b.tds(['tables', '--format', 'json']);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as Array<{ id: string; name: string; workspaceName: string }>;
}

describe('tds sync: which tables', () => {
  it('--all mirrors every table of the organization; a name taken gets its workspace first', async () => {
    const harness = await openHarness();
    const all = await serviceTables(harness);
    const synced = await syncTables(harness, ['--all']);
    expect(synced.map((table) => table.name)).toEqual(all.map((table) => table.name));
    expect(synced.every((table) => table.mode === 'full' && table.complete)).toBe(true);
    // two tables are named Contacts: the first keeps the name, the other is prefixed with its workspace
    const contacts = synced.filter((table) => table.name === 'Contacts').map((table) => table.mirrorTable);
    expect(contacts).toEqual(['contacts', 'marketing_contacts']);
    expect(new Set(synced.map((table) => table.mirrorTable)).size).toBe(synced.length);

    const recorded = await sqlRows(harness, 'SELECT table_id, name, workspace_name, mirror_table, row_count FROM _tds_tables');
    expect(recorded.map((row) => row.table_id).sort()).toEqual(all.map((table) => table.id).sort());
    const counts = recorded
      .map((row) => `SELECT '${String(row.mirror_table)}' AS t, count(*) AS n FROM "${String(row.mirror_table)}"`)
      .join(' UNION ALL ');
    const mirrored = new Map((await sqlRows(harness, counts)).map((row) => [row.t, row.n]));
    for (const row of recorded) expect(mirrored.get(row.mirror_table)).toBe(row.row_count);
    const syncs = await sqlRows(harness, 'SELECT mirror_table, mode, complete FROM _tds_syncs ORDER BY sync_id');
    expect(syncs.map((row) => row.mirror_table)).toEqual(synced.map((table) => table.mirrorTable));
    expect(syncs.every((row) => row.mode === 'full' && row.complete === true)).toBe(true);
  });

  it("--workspace adds the tables of a workspace to the ones named; with none named, the mirror's own tables are synced again", async () => {
    const harness = await openHarness();
    const all = await serviceTables(harness);
    const marketing = all.filter((table) => table.workspaceName === 'Marketing').map((table) => table.name);
    expect(marketing.length).toBeGreaterThan(1);

    const first = await syncTables(harness, ['Salaries', '--workspace', 'Marketing']);
    expect(first.map((table) => table.name).sort()).toEqual(['Salaries', ...marketing].sort());

    const again = await syncTables(harness, []);
    expect(again.map((table) => table.name).sort()).toEqual(first.map((table) => table.name).sort());
    expect(again.every((table) => table.mode === 'incremental')).toBe(true);
    // Leads was never named: it is not in the mirror
    expect((await sqlRows(harness, "SELECT count(*) AS n FROM _tds_tables WHERE name = 'Leads'"))[0]?.n).toBe(0);
    const perTable = await sqlRows(harness, 'SELECT mirror_table, count(*) AS n FROM _tds_syncs GROUP BY mirror_table');
    expect(perTable.every((row) => row.n === 2)).toBe(true);
  });

  it('an unknown workspace exits 4 and leaves the mirror as it was', async () => {
    const harness = await openHarness();
    await syncTables(harness, ['Salaries']);
    const result = await harness.tds(['sync', '--workspace', 'No Such Workspace']);
    expect(result.code).toBe(4);
    expect(result.stderr).toMatch(/No Such Workspace/);
    expect(await sqlRows(harness, 'SELECT name FROM _tds_tables')).toEqual([{ name: 'Salaries' }]);
  });

  it('shares one limiter of the row-read limit across the tables of a run: no 429, however many tables', async () => {
    // 120 pages of Generated use up the limit's window; the tables after it must wait their turn in it
    const harness = await openHarness({ rows: 12_000 });
    const since = harness.emu.requestLog.length;
    const synced = await syncTables(harness, ['Generated', 'Leads', 'Companies', 'Edge Cases']);
    expect(synced.map((table) => table.complete)).toEqual([true, true, true, true]);
    const reads = harness.emu.requestLog.slice(since).filter((entry) => entry.bucket === 'rows');
    expect(reads.length).toBeGreaterThanOrEqual(120 + 3 + 1 + 1);
    expect(reads.filter((entry) => entry.status === 429)).toEqual([]);
  });
});
