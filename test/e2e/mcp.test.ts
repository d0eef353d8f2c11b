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
const rowRequests = (): number => bench.emu.requestLog.filter((entry) => entry.bucket === 'rows').length;

describe('tds mcp: the tools', () => {
  it('lists each tool with a description for the agent, a JSON Schema of its input and of its output', async () => {
    const { tools } = await bench.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['list_tables', 'describe_table', 'sync_tables', 'search_rows']);
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
