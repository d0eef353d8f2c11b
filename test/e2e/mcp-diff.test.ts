import { describe, expect } from 'vitest';
import type { Table } from '../../src/service/index.js';
import { test as it } from '../helpers/emulator-fixture.js';
import { mcpForFile, tableIn } from './mcp-support.js';

// diff_table over a mirror of Leads (synced before the tests): what a later sync brought, as `tds diff`
// says it, and its caps.

const file = mcpForFile({ sync: ['Leads'] });
const named = (name: string, workspace?: string): Table => tableIn(file.tables, name, workspace);

describe('diff_table', () => {
  it('what the last sync brought: the rows added, updated and deleted, as `tds diff` says', async () => {
    const leads = named('Leads');
    const [first, second] = (await file.mcp.call('query_sql', { sql: 'SELECT "_id" FROM leads ORDER BY "_id" LIMIT 2' })).structured!
      .rows as Array<{
      _id: string;
    }>;
    await file.harness.admin('PATCH', `/tables/${leads.id}/rows/${first!._id}`, { cells: { Name: 'Renamed by the test' } });
    await file.harness.admin('DELETE', `/tables/${leads.id}/rows/${second!._id}`);
    await file.harness.admin('POST', `/tables/${leads.id}/rows`, { rows: [{ cells: { Name: 'Added by the test' } }] });
    const synced = await file.mcp.call('sync_tables', { tables: ['leads'], full: true });
    expect(synced.isError, synced.text).toBe(false);

    const result = await file.mcp.call('diff_table', { table: 'leads' });
    expect(result.isError, result.text).toBe(false);
    expect(result.structured).toMatchObject({
      table: { id: leads.id, mirrorTable: 'leads' },
      counts: { added: 1, updated: 1, deleted: 1 },
      row_count: 3,
      truncated: false,
    });
    const records = result.structured!.records as Array<{
      change: string;
      _id: string;
      before: Record<string, unknown> | null;
      after: Record<string, unknown> | null;
    }>;
    expect(records.find((record) => record.change === 'updated')).toMatchObject({
      _id: first!._id,
      after: { Name: 'Renamed by the test' },
    });
    expect(records.find((record) => record.change === 'deleted')).toMatchObject({ _id: second!._id, after: null });
    expect(records.find((record) => record.change === 'added')).toMatchObject({ before: null, after: { Name: 'Added by the test' } });
    const cli = await file.harness.tds(['diff', 'leads', '--format', 'ndjson']);
    expect(cli.code, cli.stderr).toBe(0);
    expect(records).toEqual(
      cli.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as unknown),
    );
  });

  it('caps its records, with the counts of every change; a bad moment names the argument', async () => {
    const all = await file.mcp.call('diff_table', { table: 'Leads', since: 'sync:-3' });
    expect(all.isError, all.text).toBe(false);
    expect(all.structured).toMatchObject({ since: 'before the first sync', truncated: true, row_count: named('Leads').rowCount });
    // whole rows: the text cap cuts them before the row cap
    const kept = (all.structured!.records as unknown[]).length;
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(100);
    expect(Buffer.byteLength(all.text)).toBeLessThanOrEqual(50_000);
    expect(all.structured!.hint).toMatch(new RegExp(`^only the first ${kept} of 250 rows are here: .*narrow the span`));
    const bad = await file.mcp.call('diff_table', { table: 'leads', since: 'yesterday-ish' });
    expect(bad.isError).toBe(true);
    expect(bad.text).toMatch(/^tds: --since "yesterday-ish" is not a moment/);
    const none = await file.mcp.call('diff_table', { table: 'Companies' });
    expect(none.text).toMatch(/^tds: no table "Companies" in the mirror/);
  });

  it('after --prune-history, a span from before what the mirror still knows is a bad argument naming the earliest moment', async () => {
    const salaries = named('Salaries', 'People Ops');
    const first = await file.harness.tds(['sync', salaries.id, '--json']);
    expect(first.code, first.stderr).toBe(0);
    const rows = (await file.mcp.call('query_sql', { sql: 'SELECT "_id" FROM salaries ORDER BY "_id" LIMIT 3' })).structured!
      .rows as Array<{
      _id: string;
    }>;
    for (const row of rows)
      await file.harness.admin('PATCH', `/tables/${salaries.id}/rows/${row._id}`, { cells: { Employee: 'Edited by the test' } });
    await file.harness.admin('POST', '/clock', { advanceMs: 10_000 });
    const pruned = await file.harness.tds(['sync', salaries.id, '--full', '--prune-history', '1s', '--json']);
    expect(pruned.code, pruned.stderr).toBe(0);
    expect((JSON.parse(pruned.stdout) as { tables: Array<{ pruned: number }> }).tables[0]!.pruned).toBe(3);
    const syncIds = [first, pruned].map((run) => (JSON.parse(run.stdout) as { tables: Array<{ syncId: number }> }).tables[0]!.syncId);
    const [before, after] = syncIds as [number, number];

    // the three rows were updated, not added: the mirror no longer knows, and says so
    const span = await file.mcp.call('diff_table', { table: 'salaries', since: `sync:${before}`, until: `sync:${after}` });
    expect(span.isError, span.text).toBe(true);
    expect(span.structured).toBeUndefined();
    expect(span.text).toMatch(new RegExp(`^tds: --since sync:${before} .* is before what the history of salaries still knows`));
    expect(span.text).toMatch(new RegExp(`\\nhint: the mirror answers for sync:${after} and later, or \\S+ and later$`));
    // what the last sync brought begins before it too; a moment in time before it likewise
    expect((await file.mcp.call('diff_table', { table: 'salaries' })).text).toMatch(/is before what the history of salaries still knows/);
    const early = await file.mcp.call('diff_table', { table: 'salaries', since: '2000-01-01T00:00:00Z' });
    expect(early.isError).toBe(true);
    expect(early.text).toMatch(/^tds: --since 2000-01-01T00:00:00Z .* is before what the history of salaries still knows/);
    // from the earliest moment on, it answers (nothing changed since)
    const known = await file.mcp.call('diff_table', { table: 'salaries', since: `sync:${after}` });
    expect(known.isError, known.text).toBe(false);
    expect(known.structured).toMatchObject({ counts: { added: 0, updated: 0, deleted: 0 }, row_count: 0 });
  });
});
