import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Table } from '../../src/service/index.js';
import { startMcp, type McpBench } from '../mcp/harness.js';

// `tds mcp` end to end: a real MCP client (the SDK's Client and stdio transport) spawns bin/tds.js mcp
// against the emulator; every tool's result is checked against the emulator's data and the command
// line's own output, and every failure is a tool result with the command line's message.

let bench: McpBench;
let tables: Table[];

beforeAll(async () => {
  bench = await startMcp();
  const response = await fetch(`${bench.emu.baseUrl}/tables`, { headers: { authorization: `Bearer ${bench.emu.apiKey}` } });
  tables = ((await response.json()) as { tables: Table[] }).tables;
});
afterAll(() => bench?.close());

const named = (name: string, workspace = 'Sales'): Table =>
  tables.find((table) => table.name === name && table.workspaceName === workspace)!;
/** Every row of a table as the service gives them (its own pages), cells by label. */
async function serviceRows(tableId: string): Promise<Array<Record<string, string | null>>> {
  const headers = { authorization: `Bearer ${bench.emu.apiKey}` };
  const schema = (await (await fetch(`${bench.emu.baseUrl}/tables/${tableId}/schema`, { headers })).json()) as {
    fields: Array<{ id: string; label: string; options: Array<{ value: string; label: string }> | null }>;
  };
  const rows: Array<Record<string, string | null>> = [];
  let cursor: string | null = null;
  do {
    const page = (await (
      await fetch(`${bench.emu.baseUrl}/tables/${tableId}/rows?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, {
        headers,
      })
    ).json()) as {
      rows: Array<{ cells: Record<string, { value?: unknown }> }>;
      nextCursor: string | null;
    };
    for (const row of page.rows) {
      const record: Record<string, string | null> = {};
      for (const field of schema.fields) {
        const value = row.cells[field.id]?.value;
        const option = field.options?.find((candidate) => candidate.value === value);
        record[field.label] = value === undefined || value === null ? null : (option?.label ?? String(value));
      }
      rows.push(record);
    }
    cursor = page.nextCursor;
  } while (cursor);
  return rows;
}

const rowRequests = (): number => bench.emu.requestLog.filter((entry) => entry.bucket === 'rows').length;

describe('tds mcp: the tools', () => {
  it('lists each tool with a description for the agent, a JSON Schema of its input and of its output', async () => {
    const { tools } = await bench.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([
      'list_tables',
      'describe_table',
      'query_sql',
      'table_stats',
      'diff_table',
      'sync_tables',
      'search_rows',
    ]);
    for (const tool of tools) {
      expect(tool.description!.length, tool.name).toBeGreaterThan(200);
      expect(tool.inputSchema).toMatchObject({ type: 'object', additionalProperties: false });
      expect(tool.outputSchema, tool.name).toMatchObject({ type: 'object' });
    }
    const search = tools.find((tool) => tool.name === 'search_rows')!;
    expect(search.inputSchema.required).toEqual(['table']);
    expect(search.inputSchema.properties!.limit).toMatchObject({ type: 'integer', minimum: 1, maximum: 100 });
    expect(tools.find((tool) => tool.name === 'sync_tables')!.annotations).toMatchObject({ readOnlyHint: false });
    expect(tools.find((tool) => tool.name === 'list_tables')!.annotations).toMatchObject({ readOnlyHint: true });
  });

  it("list_tables: the organization's tables with their rows and columns, none mirrored yet", async () => {
    const result = await bench.call('list_tables');
    expect(result.isError, result.text).toBe(false);
    expect(JSON.parse(result.text)).toEqual(result.structured);
    expect(result.structured).toMatchObject({ table_count: tables.length, mirror: bench.db, truncated: false });
    expect(result.structured!.tables).toEqual(
      tables.map((table) => ({
        id: table.id,
        name: table.name,
        workspace: table.workspaceName,
        rows: table.rowCount,
        columns: table.fieldCount,
        mirror: null,
      })),
    );
    expect(result.structured!.notes).toEqual([`there is no mirror at ${bench.db} yet: sync_tables makes it`]);
    const sales = await bench.call('list_tables', { workspace: 'Sales' });
    expect((sales.structured!.tables as Array<{ workspace: string }>).map((table) => table.workspace)).toEqual(
      tables.filter((table) => table.workspaceName === 'Sales').map(() => 'Sales'),
    );
  });

  it('describe_table: a table not mirrored, from the service, with the columns a sync would give it', async () => {
    const result = await bench.call('describe_table', { table: 'Leads' });
    expect(result.isError, result.text).toBe(false);
    const leads = named('Leads');
    expect(result.structured!.table).toEqual({
      id: leads.id,
      name: 'Leads',
      workspace: 'Sales',
      mirrorTable: null,
      rows: leads.rowCount,
      lastSync: null,
    });
    const columns = result.structured!.columns as Array<{ key: string; sqlType: string; role: string; type?: string; options?: string[] }>;
    expect(columns.slice(0, 4).map((column) => column.key)).toEqual(['_id', '_createdAt', '_updatedAt', '_createdByUserId']);
    expect(columns.find((column) => column.key === 'Employees')).toMatchObject({ sqlType: 'DOUBLE', role: 'value', type: 'number' });
    expect(columns.find((column) => column.key === 'Stage')).toMatchObject({
      sqlType: 'VARCHAR',
      type: 'select',
      options: expect.arrayContaining(['Closed Won']),
    });
    expect(columns.find((column) => column.key === 'Enrich.status')).toMatchObject({ role: 'status' });
  });

  it('sync_tables: progress notifications when asked, the summary, and the rows in the mirror', async () => {
    const progress: Array<{ progress: number; message?: string }> = [];
    const result = await bench.call('sync_tables', { tables: ['Leads', 'Signups'] }, { onprogress: (update) => progress.push(update) });
    expect(result.isError, result.text).toBe(false);
    const summary = result.structured as {
      db: string;
      tables: Array<{ name: string; mirrorTable: string; mode: string; complete: boolean; inserted: number }>;
    };
    expect(summary.db).toBe(bench.db);
    expect(
      summary.tables.map(({ name, mirrorTable, mode, complete, inserted }) => ({ name, mirrorTable, mode, complete, inserted })),
    ).toEqual([
      { name: 'Leads', mirrorTable: 'leads', mode: 'full', complete: true, inserted: named('Leads').rowCount },
      { name: 'Signups', mirrorTable: 'signups', mode: 'full', complete: true, inserted: named('Signups', 'Marketing').rowCount },
    ]);
    expect(progress.length).toBeGreaterThan(0);
    for (let i = 1; i < progress.length; i += 1) expect(progress[i]!.progress).toBeGreaterThan(progress[i - 1]!.progress);
    expect(progress.at(-1)!.message).toMatch(/^table 2 of 2, Signups: 10 rows read$/);
    const counted = await bench.tds(['sql', 'SELECT count(*) AS n FROM leads', '--format', 'ndjson']);
    expect(JSON.parse(counted.stdout)).toEqual({ n: named('Leads').rowCount });
  });

  it('list_tables and describe_table then show the mirror: its table names, rows, last sync and DuckDB types', async () => {
    const listed = await bench.call('list_tables', { workspace: 'Sales' });
    const leads = (
      listed.structured!.tables as Array<{ name: string; mirror: { table: string; rows: number; lastSync: string } | null }>
    ).find((table) => table.name === 'Leads')!;
    expect(leads.mirror).toMatchObject({ table: 'leads', rows: named('Leads').rowCount });
    expect(Date.parse(leads.mirror!.lastSync)).toBeGreaterThan(0);

    const described = await bench.call('describe_table', { table: 'leads' });
    expect(described.isError, described.text).toBe(false);
    expect(described.structured!.table).toMatchObject({ mirrorTable: 'leads', rows: named('Leads').rowCount });
    const sql = await bench.tds([
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

  it("query_sql: an aggregate over the mirror, the same as the emulator's rows give", async () => {
    const rows = await serviceRows(named('Leads').id);
    const byStage = new Map<string, number>();
    for (const row of rows) byStage.set(row.Stage ?? 'null', (byStage.get(row.Stage ?? 'null') ?? 0) + 1);
    const result = await bench.call('query_sql', {
      sql: 'SELECT coalesce("Stage", \'null\') AS stage, count(*) AS n FROM leads GROUP BY 1 ORDER BY 1',
    });
    expect(result.isError, result.text).toBe(false);
    expect(result.structured).toMatchObject({ columns: ['stage', 'n'], row_count: byStage.size, truncated: false });
    expect(result.structured!.rows).toEqual([...byStage].sort(([a], [b]) => (a < b ? -1 : 1)).map(([stage, n]) => ({ stage, n })));
  });

  it('query_sql: a result cut at max_rows or at the text cap says truncated, with the full row count and a hint', async () => {
    const all = await bench.call('query_sql', { sql: 'SELECT "_id", "Name" FROM leads' });
    expect(all.structured).toMatchObject({ row_count: named('Leads').rowCount, truncated: true });
    expect(all.structured!.rows).toHaveLength(100);
    expect(all.structured!.hint).toMatch(/^only the first 100 of 250 rows are here: .*; aggregate in SQL/);
    const five = await bench.call('query_sql', { sql: 'SELECT "_id" FROM leads ORDER BY "_id"', max_rows: 5 });
    expect(five.structured).toMatchObject({ row_count: 250, truncated: true });
    expect(five.structured!.rows).toHaveLength(5);
    const wide = await bench.call('query_sql', { sql: "SELECT range AS i, repeat('x', 1000) AS text FROM range(100)" });
    expect(wide.structured).toMatchObject({ row_count: 100, truncated: true });
    expect((wide.structured!.rows as unknown[]).length).toBeLessThan(50);
    expect(Buffer.byteLength(wide.text)).toBeLessThanOrEqual(50_000);
    expect(wide.structured!.hint).toMatch(/at most 50,000 bytes of text/);
  });

  it('query_sql: hostile statements are refused and nothing is written', async () => {
    const out = join(bench.dir, 'out');
    for (const sql of [
      `COPY leads TO '${out}.csv'`,
      `COPY leads TO '${bench.db}' (USE_TMP_FILE false)`,
      `SELECT * FROM read_text('${bench.db}')`,
      `ATTACH '${out}.duckdb' AS other`,
      'INSTALL httpfs',
      'CREATE TABLE made (a INTEGER)',
      'SET enable_external_access = true',
      'SELECT 1; SELECT 2',
    ]) {
      const result = await bench.call('query_sql', { sql });
      expect(result.isError, sql).toBe(true);
      expect(result.text).toMatch(/^tds: (SQL: |tds sql runs one statement)/);
    }
    expect((await readdir(bench.dir)).filter((name) => name.startsWith('out'))).toEqual([]);
    const counted = await bench.call('query_sql', { sql: 'SELECT count(*) AS n FROM leads' });
    expect(counted.structured!.rows).toEqual([{ n: named('Leads').rowCount }]);
  });

  it("table_stats: the figures of `tds stats`, which the service's rows bear out", async () => {
    const result = await bench.call('table_stats', { table: 'leads' });
    expect(result.isError, result.text).toBe(false);
    const cli = await bench.tds(['stats', 'Leads', '--no-sync', '--format', 'json']);
    expect(cli.code, cli.stderr).toBe(0);
    expect(result.structured).toEqual({ ...(JSON.parse(cli.stdout) as object), truncated: false });
    const rows = await serviceRows(named('Leads').id);
    const stage = (result.structured!.columns as Array<{ key: string; filled: number; top: Array<{ value: string; count: number }> }>).find(
      (column) => column.key === 'Stage',
    )!;
    expect(stage.filled).toBe(rows.filter((row) => row.Stage !== null).length);
    for (const { value, count } of stage.top) expect(count).toBe(rows.filter((row) => row.Stage === value).length);

    const two = await bench.call('table_stats', { table: named('Leads').id, columns: ['Employees', 'Stage'] });
    expect((two.structured!.columns as Array<{ key: string }>).map((column) => column.key)).toEqual(['Employees', 'Stage']);
    const unknown = await bench.call('table_stats', { table: 'leads', columns: ['Nope'] });
    expect(unknown.text).toMatch(/^tds: --columns: no column "Nope"/);
    const notMirrored = await bench.call('table_stats', { table: 'Companies' });
    expect(notMirrored.text).toMatch(
      /^tds: no table "Companies" in the mirror\nhint: the mirror has leads \("Leads"\), signups \("Signups"\); sync_tables adds a table$/,
    );
  });

  it('describe_table: a mirrored table has its fill and run states in short', async () => {
    const result = await bench.call('describe_table', { table: 'leads' });
    const stats = await bench.call('table_stats', { table: 'leads', columns: ['Stage', 'Enrich'] });
    const [stage, enrich] = stats.structured!.columns as Array<{ fill: number; states: Record<string, number> | null }>;
    const columns = result.structured!.columns as Array<{ key: string; fill?: number; states?: Record<string, number> }>;
    expect(columns.find((column) => column.key === 'Stage')!.fill).toBeCloseTo(stage!.fill, 3);
    const states = Object.fromEntries(Object.entries(enrich!.states!).filter(([, count]) => count > 0));
    expect(columns.find((column) => column.key === 'Enrich')!.states).toEqual(states);
    expect(Object.keys(states).length).toBeGreaterThan(0);
  });

  it('search_rows: live rows through the --where language, the records `tds query` gives', async () => {
    const where = 'Employees >= 1000 and Stage = "Closed Won"';
    const result = await bench.call('search_rows', { table: 'Leads', where, limit: 5 });
    expect(result.isError, result.text).toBe(false);
    const query = await bench.tds(['query', 'Leads', '--where', where, '-n', '5', '--format', 'ndjson', '--status-columns']);
    expect(query.code, query.stderr).toBe(0);
    const expected = query.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
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
    const page = await bench.call('search_rows', { table: 'signups', limit: 3 });
    expect(page.structured).toMatchObject({ returned: 3, more: true });
  });

  it("search_rows: a mistake in `where` is told before any row is read, in the command line's words", async () => {
    const before = rowRequests();
    const result = await bench.call('search_rows', { table: 'Leads', where: 'Employes >= 100' });
    expect(result.isError).toBe(true);
    expect(rowRequests()).toBe(before);
    const cli = await bench.tds(['query', 'Leads', '--where', 'Employes >= 100']);
    expect(cli.code).toBe(2);
    expect(result.text).toBe(cli.stderr.trimEnd().replace('tds: --where: ', 'tds: where: '));
    const operator = await bench.call('search_rows', { table: 'Leads', where: 'Employees contains 5' });
    expect(operator.isError).toBe(true);
    expect(operator.text).toMatch(/^tds: where: .*contains/);
    expect(rowRequests()).toBe(before);
  });

  it('a bad argument is named', async () => {
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      ['search_rows', { table: 'Leads', limit: 101 }, /limit/],
      ['search_rows', { table: 'Leads', q: 'x'.repeat(101) }, /\bq\b/],
      ['search_rows', { where: 'Name = Ada' }, /table/],
      ['describe_table', { tabel: 'Leads' }, /tabel/],
      ['list_tables', { workspace: 5 }, /workspace/],
      ['sync_tables', { tables: 'Leads' }, /tables/],
      ['query_sql', { sql: 'SELECT 1', max_rows: 101 }, /max_rows/],
      ['query_sql', { query: 'SELECT 1' }, /query|sql/],
    ];
    for (const [tool, args, names] of cases) {
      const result = await bench.call(tool, args);
      expect(result.isError, `${tool} ${JSON.stringify(args)}`).toBe(true);
      expect(result.text).toMatch(names);
    }
  });

  it('a failure is a tool result with the message and hint of the command line; the server goes on', async () => {
    const result = await bench.call('describe_table', { table: 'Nope' });
    expect(result).toMatchObject({ isError: true, structured: undefined });
    const cli = await bench.tds(['schema', 'Nope']);
    expect(cli.code).toBe(4);
    expect(result.text).toBe(cli.stderr.trimEnd());
    const unknownWorkspace = await bench.call('sync_tables', { tables: ['Nope'] });
    expect(unknownWorkspace.text).toMatch(/^tds: no table with ID or name "Nope" in this organization\nhint: /);
    expect((await bench.call('list_tables')).isError).toBe(false);
    expect(bench.wireErrors).toEqual([]);
  });
});

describe('diff_table', () => {
  it('what the last sync brought: the rows added, updated and deleted, as `tds diff` says', async () => {
    const leads = named('Leads');
    const [first, second] = (await bench.call('query_sql', { sql: 'SELECT "_id" FROM leads ORDER BY "_id" LIMIT 2' })).structured!
      .rows as Array<{
      _id: string;
    }>;
    await bench.admin('PATCH', `/tables/${leads.id}/rows/${first!._id}`, { cells: { Name: 'Renamed by the test' } });
    await bench.admin('DELETE', `/tables/${leads.id}/rows/${second!._id}`);
    await bench.admin('POST', `/tables/${leads.id}/rows`, { rows: [{ cells: { Name: 'Added by the test' } }] });
    const synced = await bench.call('sync_tables', { tables: ['leads'], full: true });
    expect(synced.isError, synced.text).toBe(false);

    const result = await bench.call('diff_table', { table: 'leads' });
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
    const cli = await bench.tds(['diff', 'leads', '--format', 'ndjson']);
    expect(cli.code, cli.stderr).toBe(0);
    expect(records).toEqual(
      cli.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as unknown),
    );
  });

  it('caps its records, with the counts of every change; a bad moment names the argument', async () => {
    const all = await bench.call('diff_table', { table: 'Leads', since: 'sync:-3' });
    expect(all.isError, all.text).toBe(false);
    expect(all.structured).toMatchObject({ since: 'before the first sync', truncated: true, row_count: named('Leads').rowCount });
    // whole rows: the text cap cuts them before the row cap
    const kept = (all.structured!.records as unknown[]).length;
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(100);
    expect(Buffer.byteLength(all.text)).toBeLessThanOrEqual(50_000);
    expect(all.structured!.hint).toMatch(new RegExp(`^only the first ${kept} of 250 rows are here: .*narrow the span`));
    const bad = await bench.call('diff_table', { table: 'leads', since: 'yesterday-ish' });
    expect(bad.isError).toBe(true);
    expect(bad.text).toMatch(/^tds: --since "yesterday-ish" is not a moment/);
    const none = await bench.call('diff_table', { table: 'Companies' });
    expect(none.text).toMatch(/^tds: no table "Companies" in the mirror/);
  });
});
