import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { openMirror } from '../../src/mirror/mirror-db.js';
import type { Table } from '../../src/service/index.js';
import { test as it } from '../helpers/emulator-fixture.js';
import { mcpForFile, serviceRows, tableIn } from './mcp-support.js';
import { parseNdjson } from './rows-support.js';

// `tds mcp` and its mirror: sync_tables makes it (with progress); list_tables, describe_table, query_sql
// and table_stats then read it, checked against the command line's output and the service's rows.

const file = mcpForFile();
const named = (name: string, workspace?: string): Table => tableIn(file.tables, name, workspace);
const rowRequests = (): number => file.harness.emu.requestLog.filter((entry) => entry.bucket === 'rows').length;

describe('sync_tables and the mirror it makes', () => {
  it('sync_tables: progress notifications when asked, the summary, and the rows in the mirror', async () => {
    const progress: Array<{ progress: number; message?: string }> = [];
    const result = await file.mcp.call('sync_tables', { tables: ['Leads', 'Signups'] }, { onprogress: (update) => progress.push(update) });
    expect(result.isError, result.text).toBe(false);
    const summary = result.structured as {
      db: string;
      tables: Array<{ name: string; mirrorTable: string; mode: string; complete: boolean; inserted: number }>;
    };
    expect(summary.db).toBe(file.harness.db);
    expect(
      summary.tables.map(({ name, mirrorTable, mode, complete, inserted }) => ({ name, mirrorTable, mode, complete, inserted })),
    ).toEqual([
      { name: 'Leads', mirrorTable: 'leads', mode: 'full', complete: true, inserted: named('Leads').rowCount },
      { name: 'Signups', mirrorTable: 'signups', mode: 'full', complete: true, inserted: named('Signups', 'Marketing').rowCount },
    ]);
    expect(progress.length).toBeGreaterThan(0);
    for (let i = 1; i < progress.length; i += 1) expect(progress[i]!.progress).toBeGreaterThan(progress[i - 1]!.progress);
    expect(progress.at(-1)!.message).toMatch(/^table 2 of 2, Signups: 10 rows read$/);
    const counted = await file.harness.tds(['sql', 'SELECT count(*) AS n FROM leads', '--format', 'ndjson']);
    expect(JSON.parse(counted.stdout)).toEqual({ n: named('Leads').rowCount });
  });

  it('list_tables and describe_table then show the mirror: its table names, rows, last sync and DuckDB types', async () => {
    const listed = await file.mcp.call('list_tables', { workspace: 'Sales' });
    const leads = (
      listed.structured!.tables as Array<{ name: string; mirror: { table: string; rows: number; lastSync: string } | null }>
    ).find((table) => table.name === 'Leads')!;
    expect(leads.mirror).toMatchObject({ table: 'leads', rows: named('Leads').rowCount });
    expect(Date.parse(leads.mirror!.lastSync)).toBeGreaterThan(0);

    const described = await file.mcp.call('describe_table', { table: 'leads' });
    expect(described.isError, described.text).toBe(false);
    expect(described.structured!.table).toMatchObject({ mirrorTable: 'leads', rows: named('Leads').rowCount });
    const sql = await file.harness.tds([
      'sql',
      "SELECT column_name, data_type FROM duckdb_columns() WHERE table_name = 'leads' ORDER BY column_index",
      '--format',
      'ndjson',
    ]);
    const mirrorColumns = sql.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { column_name: string; data_type: string });
    expect((described.structured!.columns as Array<{ key: string; sqlType: string }>).map(({ key, sqlType }) => [key, sqlType])).toEqual(
      mirrorColumns.map((column) => [column.column_name, column.data_type]),
    );
  });
});

describe('query_sql', () => {
  it("query_sql: an aggregate over the mirror, the same as the emulator's rows give", async () => {
    const rows = await serviceRows(file.harness.emu, named('Leads').id);
    const byStage = new Map<string, number>();
    for (const row of rows) byStage.set(row.Stage ?? 'null', (byStage.get(row.Stage ?? 'null') ?? 0) + 1);
    const result = await file.mcp.call('query_sql', {
      sql: 'SELECT coalesce("Stage", \'null\') AS stage, count(*) AS n FROM leads GROUP BY 1 ORDER BY 1',
    });
    expect(result.isError, result.text).toBe(false);
    expect(result.structured).toMatchObject({ columns: ['stage', 'n'], row_count: byStage.size, truncated: false });
    expect(result.structured!.rows).toEqual([...byStage].sort(([a], [b]) => (a < b ? -1 : 1)).map(([stage, n]) => ({ stage, n })));
  });

  it('query_sql: a result cut at max_rows or at the text cap says truncated, with the full row count and a hint', async () => {
    const all = await file.mcp.call('query_sql', { sql: 'SELECT "_id", "Name" FROM leads' });
    expect(all.structured).toMatchObject({ row_count: named('Leads').rowCount, truncated: true });
    expect(all.structured!.rows).toHaveLength(100);
    expect(all.structured!.hint).toMatch(/^only the first 100 of 250 rows are here: .*; aggregate in SQL/);
    const five = await file.mcp.call('query_sql', { sql: 'SELECT "_id" FROM leads ORDER BY "_id"', max_rows: 5 });
    expect(five.structured).toMatchObject({ row_count: 250, truncated: true });
    expect(five.structured!.rows).toHaveLength(5);
    const wide = await file.mcp.call('query_sql', { sql: "SELECT range AS i, repeat('x', 1000) AS text FROM range(100)" });
    expect(wide.structured).toMatchObject({ row_count: 100, truncated: true });
    expect((wide.structured!.rows as unknown[]).length).toBeLessThan(50);
    expect(Buffer.byteLength(wide.text)).toBeLessThanOrEqual(50_000);
    expect(wide.structured!.hint).toMatch(/at most 50,000 bytes of text/);
  });

  it('query_sql: the server keeps the mirror open between calls and lets go of it when another process waits to write it', async () => {
    const counted = await file.mcp.call('query_sql', { sql: 'SELECT count(*) AS n FROM leads' });
    expect(counted.isError, counted.text).toBe(false);
    // a request after it: whatever the server did once it answered is done
    await file.mcp.client.listTools();
    // the server still holds the file: a writer that does not wait is refused, naming it
    await expect(openMirror(file.harness.db, { readOnly: false, lockWaitMs: 0 })).rejects.toThrow(
      /is in use by another process \(PID \d+ \(tds mcp\)\)/,
    );
    // a writer that waits gets it long before the server's minute of idleness is up
    const writer = await openMirror(file.harness.db, { readOnly: false, lockWaitMs: 20_000 });
    writer.close();
    const again = await file.mcp.call('query_sql', { sql: 'SELECT count(*) AS n FROM leads' });
    expect(again.structured!.rows).toEqual([{ n: named('Leads').rowCount }]);
  });

  it('query_sql: hostile statements are refused and nothing is written', async () => {
    const out = join(file.harness.dir, 'out');
    for (const sql of [
      `COPY leads TO '${out}.csv'`,
      `COPY leads TO '${file.harness.db}' (USE_TMP_FILE false)`,
      `SELECT * FROM read_text('${file.harness.db}')`,
      `ATTACH '${out}.duckdb' AS other`,
      'INSTALL httpfs',
      'CREATE TABLE made (a INTEGER)',
      'SET enable_external_access = true',
      'SELECT 1; SELECT 2',
    ]) {
      const result = await file.mcp.call('query_sql', { sql });
      expect(result.isError, sql).toBe(true);
      expect(result.text).toMatch(/^tds: (SQL: |tds sql runs one statement)/);
    }
    expect((await readdir(file.harness.dir)).filter((name) => name.startsWith('out'))).toEqual([]);
    const counted = await file.mcp.call('query_sql', { sql: 'SELECT count(*) AS n FROM leads' });
    expect(counted.structured!.rows).toEqual([{ n: named('Leads').rowCount }]);
  });

  it('query_sql: a name with spaces left unquoted, a misspelt column or table: the hint says what to write', async () => {
    for (const [sql, hint] of [
      ['SELECT Last Contacted FROM leads', 'hint: a name with spaces needs double quotes: "Last Contacted"'],
      ['SELECT Nmae FROM leads', 'hint: did you mean "Name"?'],
      ['SELECT * FROM leds', 'hint: did you mean leads?'],
    ]) {
      const result = await file.mcp.call('query_sql', { sql: sql! });
      expect(result.isError, sql).toBe(true);
      expect(result.text).toContain(hint);
    }
  });
});

describe('table_stats, and the profile describe_table gives in short', () => {
  it("table_stats: the figures of `tds stats`, which the service's rows bear out", async () => {
    const result = await file.mcp.call('table_stats', { table: 'leads' });
    expect(result.isError, result.text).toBe(false);
    const cli = await file.harness.tds(['stats', 'Leads', '--no-sync', '--format', 'json']);
    expect(cli.code, cli.stderr).toBe(0);
    expect(result.structured).toEqual({ ...(JSON.parse(cli.stdout) as object), truncated: false });
    const rows = await serviceRows(file.harness.emu, named('Leads').id);
    const stage = (result.structured!.columns as Array<{ key: string; filled: number; top: Array<{ value: string; count: number }> }>).find(
      (column) => column.key === 'Stage',
    )!;
    expect(stage.filled).toBe(rows.filter((row) => row.Stage !== null).length);
    for (const { value, count } of stage.top) expect(count).toBe(rows.filter((row) => row.Stage === value).length);

    const two = await file.mcp.call('table_stats', { table: named('Leads').id, columns: ['Employees', 'Stage'] });
    expect((two.structured!.columns as Array<{ key: string }>).map((column) => column.key)).toEqual(['Employees', 'Stage']);
    const unknown = await file.mcp.call('table_stats', { table: 'leads', columns: ['Nope'] });
    expect(unknown.text).toMatch(/^tds: --columns: no column "Nope"/);
    const notMirrored = await file.mcp.call('table_stats', { table: 'Companies' });
    expect(notMirrored.text).toMatch(
      /^tds: no table "Companies" in the mirror\nhint: the mirror has leads \("Leads"\), signups \("Signups"\); sync_tables adds a table$/,
    );
  });

  it('describe_table: a mirrored table has its fill and run states in short', async () => {
    const result = await file.mcp.call('describe_table', { table: 'leads' });
    const stats = await file.mcp.call('table_stats', { table: 'leads', columns: ['Stage', 'Enrich'] });
    const [stage, enrich] = stats.structured!.columns as Array<{ fill: number; states: Record<string, number> | null }>;
    const columns = result.structured!.columns as Array<{ key: string; fill?: number; states?: Record<string, number> }>;
    expect(columns.find((column) => column.key === 'Stage')!.fill).toBeCloseTo(stage!.fill, 3);
    const states = Object.fromEntries(Object.entries(enrich!.states!).filter(([, count]) => count > 0));
    expect(columns.find((column) => column.key === 'Enrich')!.states).toEqual(states);
    expect(Object.keys(states).length).toBeGreaterThan(0);
  });
});

/** The records `tds query Leads --where WHERE -n LIMIT --status-columns` writes (it must succeed). */
async function leadsQueried(where: string, limit: number): Promise<Array<Record<string, unknown>>> {
  const query = await file.harness.tds(['query', 'Leads', '--where', where, '-n', String(limit), '--format', 'ndjson', '--status-columns']);
  expect(query.code, query.stderr).toBe(0);
  return parseNdjson(query.stdout);
}

// live rows, but after the sync: a table is also found by its mirror table's name (signups)
describe('search_rows', () => {
  it('search_rows: live rows through the --where language, the records `tds query` gives', async () => {
    const where = 'Employees >= 1000 and Stage = "Closed Won"';
    const result = await file.mcp.call('search_rows', { table: 'Leads', where, limit: 5 });
    expect(result.isError, result.text).toBe(false);
    const expected = await leadsQueried(where, 5);
    expect(result.structured).toMatchObject({
      table: { id: named('Leads').id, name: 'Leads' },
      returned: expected.length,
      truncated: false,
    });
    expect(result.structured!.records).toEqual(expected);
    for (const record of expected) {
      expect(record.Employees as number).toBeGreaterThanOrEqual(1000);
      expect(record.Stage).toBe('Closed Won');
    }
    const page = await file.mcp.call('search_rows', { table: 'signups', limit: 3 });
    expect(page.structured).toMatchObject({ returned: 3, more: true });
  });

  it('a member is the same object in search_rows, query_sql and tds sql', async () => {
    const live = await file.mcp.call('search_rows', { table: 'Leads', where: 'Owner notNull', limit: 1 });
    const record = (live.structured!.records as Array<{ _id: string; Owner: unknown }>)[0]!;
    expect(record.Owner).toMatchObject({ id: expect.any(String), name: expect.any(String) });
    const sql = `SELECT Owner FROM leads WHERE "_id" = '${record._id}'`;
    const mirrored = await file.mcp.call('query_sql', { sql });
    expect(mirrored.structured!.rows).toEqual([{ Owner: record.Owner }]);
    const cli = await file.harness.tds(['sql', sql, '--format', 'ndjson']);
    expect(JSON.parse(cli.stdout)).toEqual({ Owner: record.Owner });
  });

  it('search_rows: COL.status = STATE, the records `tds query` gives, the cost in a note', async () => {
    const where = 'Enrich.status in [success, queued]';
    const result = await file.mcp.call('search_rows', { table: 'Leads', where, limit: 4 });
    expect(result.isError, result.text).toBe(false);
    const expected = await leadsQueried(where, 4);
    expect(expected.length).toBeGreaterThan(0);
    expect(result.structured!.records).toEqual(expected);
    expect(result.structured!.notes).toEqual([
      expect.stringMatching(
        /^Enrich.status in \[success, queued\] was tested here, on the \d+ rows the service returned \(1 row request; no service operator covers it\)$/,
      ),
    ]);
  });

  it("search_rows: a mistake in `where` is told before any row is read, in the command line's words", async () => {
    const before = rowRequests();
    const result = await file.mcp.call('search_rows', { table: 'Leads', where: 'Employes >= 100' });
    expect(result.isError).toBe(true);
    expect(rowRequests()).toBe(before);
    const cli = await file.harness.tds(['query', 'Leads', '--where', 'Employes >= 100']);
    expect(cli.code).toBe(2);
    expect(result.text).toBe(cli.stderr.trimEnd().replace('tds: --where: ', 'tds: where: '));
    const operator = await file.mcp.call('search_rows', { table: 'Leads', where: 'Employees contains 5' });
    expect(operator.isError).toBe(true);
    expect(operator.text).toMatch(/^tds: where: .*contains/);
    expect(rowRequests()).toBe(before);
  });
});
