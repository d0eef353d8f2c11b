import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, expect } from 'vitest';
import type { Table } from '../../src/service/index.js';
import { test, type Harness } from '../helpers/emulator-fixture.js';
import { childEnv, type EnvOverrides } from '../helpers/hermetic-env.js';
import { TDS_BIN } from '../helpers/spawn-tds.js';
import { fetchJson, type Target } from './read-support.js';
import { allRows, schemaOf } from './rows-support.js';

// Shared by the `tds mcp` end-to-end files (mcp-*.test.ts): a real MCP client (the SDK's Client and its
// stdio transport) that spawns `bin/tds.js mcp` against the fixture's harness (its emulator, folder,
// mirror and environment), the service's tables, and the service's rows to check tool results by.

export interface McpClient {
  client: Client;
  /** what the server wrote on stderr (its log) */
  stderr(): string;
  /** every error the client saw on the wire (a line that is not JSON-RPC, …) */
  wireErrors: Error[];
  /** a tool call; its result's text and structured content */
  call(name: string, args?: Record<string, unknown>, options?: Parameters<Client['callTool']>[1]): Promise<ToolResult>;
  /** ends the client: stdin closed, as a client going away does (the harness's emulator stays) */
  close(): Promise<void>;
}

export interface ToolResult {
  isError: boolean;
  text: string;
  structured: Record<string, unknown> | undefined;
}

export interface McpOptions {
  /** after `tds mcp` */
  args?: string[];
  /** on top of the harness's environment (undefined removes a variable) */
  env?: EnvOverrides;
  /** the server's working folder (default: the harness's folder) */
  cwd?: string;
}

/** `tds mcp` spawned in the harness's folder (or `cwd`) with its environment, and a client connected to it. */
export async function connectMcp(harness: Harness, options: McpOptions = {}): Promise<McpClient> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [TDS_BIN, 'mcp', ...(options.args ?? [])],
    env: childEnv({ ...harness.env, ...options.env }),
    cwd: options.cwd ?? harness.dir,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const client = new Client({ name: 'tds-test', version: '1.0.0' });
  const wireErrors: Error[] = [];
  client.onerror = (error) => wireErrors.push(error);
  await client.connect(transport);
  return {
    client,
    stderr: () => stderr,
    wireErrors,
    async call(name, args = {}, callOptions) {
      const result = await client.callTool({ name, arguments: args }, callOptions);
      const content = (result.content ?? []) as Array<{ type: string; text?: string }>;
      return {
        isError: result.isError === true,
        text: content.map((block) => block.text ?? '').join('\n'),
        structured: result.structuredContent as Record<string, unknown> | undefined,
      };
    },
    close: () => client.close(),
  };
}

/** The organization's tables, from the service itself. */
export async function serviceTables(target: Target): Promise<Table[]> {
  return (await fetchJson(target, '/tables')).tables as Table[];
}

/** A client and the service's tables; `sync` (names for sync_tables) are mirrored before it is returned. */
export async function connectMcpWithTables(
  harness: Harness,
  options: McpOptions & { sync?: string[] } = {},
): Promise<{ mcp: McpClient; tables: Table[] }> {
  const { sync, ...mcpOptions } = options;
  const mcp = await connectMcp(harness, mcpOptions);
  const tables = await serviceTables(harness);
  if (sync) {
    const synced = await mcp.call('sync_tables', { tables: sync });
    expect(synced.isError, synced.text).toBe(false);
  }
  return { mcp, tables };
}

/** What an MCP test file shares: its harness, one client connected to it, and the service's tables. */
export interface McpFile {
  harness: Harness;
  mcp: McpClient;
  tables: Table[];
}

/**
 * One client for the file's tests: connected to the file's harness before them (connectMcpWithTables,
 * with `options`), closed and checked after them. The members are set once the file's set-up has run.
 */
export function mcpForFile(options: McpOptions & { sync?: string[] } = {}): McpFile {
  const file = {} as McpFile;
  test.beforeAll(async ({ harness }) => {
    file.harness = harness;
    Object.assign(file, await connectMcpWithTables(harness, options));
  });
  afterAll(() => closeMcp(file.mcp));
  return file;
}

/** Closes the client (when it connected) and checks that it saw nothing amiss on the wire all along. */
export async function closeMcp(mcp: McpClient | undefined): Promise<void> {
  if (!mcp) return;
  await mcp.close();
  expect(mcp.wireErrors).toEqual([]);
}

/** The demo's table of that name in that workspace. */
export const tableIn = (tables: Table[], name: string, workspace = 'Sales'): Table =>
  tables.find((table) => table.name === name && table.workspaceName === workspace)!;

/** Every row of a table as the service gives them (its own pages), cells by label, options by label. */
export async function serviceRows(target: Target, tableId: string): Promise<Array<Record<string, string | null>>> {
  const fields = await schemaOf(target, tableId);
  return (await allRows(target, tableId)).map((row) => {
    const record: Record<string, string | null> = {};
    for (const field of fields) {
      const value = row.cells[field.id]?.value;
      const option = field.options?.find((candidate) => candidate.value === value);
      record[field.label] = value === undefined || value === null ? null : (option?.label ?? String(value));
    }
    return record;
  });
}
