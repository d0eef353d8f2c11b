import { TdsError, UsageError } from '../core/errors.js';
import type { Table } from '../service/index.js';
import type { ApiClient } from './client.js';

/**
 * A table ID or exact name → the Table (one GET /tables). Unknown → NOT_FOUND (exit 4);
 * a name shared by several tables → USAGE (exit 2) listing their IDs and workspaces.
 */
export async function resolveTable(client: ApiClient, ref: string): Promise<Table> {
  const { tables } = await client.tables();
  return pickTable(tables, ref);
}

export function pickTable(tables: Table[], ref: string): Table {
  const byId = tables.find((table) => table.id === ref);
  if (byId) return byId;
  const named = tables.filter((table) => table.name === ref);
  if (named.length === 1) return named[0]!;
  if (named.length > 1) {
    const list = named.map((table) => `${table.id} (workspace "${table.workspaceName}")`).join(', ');
    throw new UsageError(`table name "${ref}" matches ${named.length} tables: ${list}`, {
      hint: 'give the table ID instead of its name',
    });
  }
  const folded = ref.trim().toLowerCase();
  const close = tables.filter((table) => table.name.trim().toLowerCase() === folded || table.id.toLowerCase() === folded);
  throw new TdsError('NOT_FOUND', `no table with ID or name "${ref}" in this organization`, {
    ...(close.length
      ? { hint: `did you mean ${close.map((table) => `"${table.name}" (${table.id})`).join(' or ')}? names are matched exactly` }
      : { reason: 'unknown-table' as const }),
  });
}
