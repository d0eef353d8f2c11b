import { expect } from 'vitest';
import type { Table } from '../../src/service/index.js';
import { startMcp, type McpBench, type McpBenchOptions } from '../mcp/harness.js';
import { fetchJson, type Target } from './read-support.js';
import { allRows, schemaOf } from './rows-support.js';

// Shared by the `tds mcp` end-to-end files (mcp-*.test.ts): a bench with the service's tables known,
// optionally with some of them in the mirror already, and the service's rows to check tool results by.

export interface McpTables {
  bench: McpBench;
  /** the service's tables, as GET /tables gives them at the start */
  tables: Table[];
}

/** The organization's tables, from the service itself. */
export async function serviceTables(target: Target): Promise<Table[]> {
  return (await fetchJson(target, '/tables')).tables as Table[];
}

/** A bench and the service's tables; `sync` (names for sync_tables) are mirrored before it is returned. */
export async function startMcpWithTables(options: McpBenchOptions & { sync?: string[] } = {}): Promise<McpTables> {
  const { sync, ...benchOptions } = options;
  const bench = await startMcp(benchOptions);
  const tables = await serviceTables(bench.emu);
  if (sync) {
    const synced = await bench.call('sync_tables', { tables: sync });
    expect(synced.isError, synced.text).toBe(false);
  }
  return { bench, tables };
}

/** Closes the bench (when it started) and checks that the client saw nothing amiss on the wire all along. */
export async function closeMcp(bench: McpBench | undefined): Promise<void> {
  if (!bench) return;
  await bench.close();
  expect(bench.wireErrors).toEqual([]);
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
