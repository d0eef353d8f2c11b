import { describe, expect } from 'vitest';
import type { Table } from '../../src/service/index.js';
import { test as it } from '../helpers/emulator-fixture.js';
import { NEVER_SYNCED } from '../helpers/never-synced.js';
import { mcpForFile, tableIn } from './mcp-support.js';

// `tds mcp` end to end: a real MCP client (the SDK's Client and stdio transport) spawns bin/tds.js mcp
// against the emulator. Here the tools as listed, list_tables and describe_table before any mirror, the
// arguments they refuse and their failures: a tool result with the command line's message.

const file = mcpForFile();
const named = (name: string, workspace?: string): Table => tableIn(file.tables, name, workspace);

describe('tds mcp: the tools', () => {
  it('lists each tool with a description for the agent, a JSON Schema of its input and of its output', async () => {
    const { tools } = await file.mcp.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([
      'list_tables',
      'describe_table',
      'query_sql',
      'table_stats',
      'diff_table',
      'sync_tables',
      'search_rows',
      'check_tables',
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
    const result = await file.mcp.call('list_tables');
    expect(result.isError, result.text).toBe(false);
    expect(JSON.parse(result.text)).toEqual(result.structured);
    expect(result.structured).toMatchObject({ table_count: file.tables.length, mirror: file.harness.db, truncated: false });
    expect(result.structured!.tables).toEqual(
      file.tables.map((table) => ({
        id: table.id,
        name: table.name,
        workspace: table.workspaceName,
        rows: table.rowCount,
        columns: table.fieldCount,
        mirror: null,
      })),
    );
    expect(result.structured!.notes).toEqual([`there is no mirror at ${file.harness.db} yet: sync_tables makes it`]);
    const sales = await file.mcp.call('list_tables', { workspace: 'Sales' });
    expect((sales.structured!.tables as Array<{ workspace: string }>).map((table) => table.workspace)).toEqual(
      file.tables.filter((table) => table.workspaceName === 'Sales').map(() => 'Sales'),
    );
  });

  it('describe_table: a table not mirrored, from the service, with the columns a sync would give it', async () => {
    const result = await file.mcp.call('describe_table', { table: 'Leads' });
    expect(result.isError, result.text).toBe(false);
    const leads = named('Leads');
    expect(result.structured!.table).toEqual({
      id: leads.id,
      name: 'Leads',
      workspace: 'Sales',
      mirrorTable: null,
      rows: leads.rowCount,
      ...NEVER_SYNCED,
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
      const result = await file.mcp.call(tool, args);
      expect(result.isError, `${tool} ${JSON.stringify(args)}`).toBe(true);
      expect(result.text).toMatch(names);
    }
  });

  it('a failure is a tool result with the message and hint of the command line; the server goes on', async () => {
    const result = await file.mcp.call('describe_table', { table: 'Nope' });
    expect(result).toMatchObject({ isError: true, structured: undefined });
    const cli = await file.harness.tds(['schema', 'Nope']);
    expect(cli.code).toBe(4);
    expect(result.text).toBe(cli.stderr.trimEnd());
    const unknownWorkspace = await file.mcp.call('sync_tables', { tables: ['Nope'] });
    expect(unknownWorkspace.text).toMatch(/^tds: no table with ID or name "Nope" in this organization\nhint: /);
    expect((await file.mcp.call('list_tables')).isError).toBe(false);
    expect(file.mcp.wireErrors).toEqual([]);
  });
});
