import { TdsError, UsageError } from '../core/errors.js';
import type { Table, Workspace } from '../service/index.js';
import { pickTable } from '../records/table-ref.js';
import type { ApiClient } from './client.js';

// A table or workspace as a command names it, looked up in the service's listing (the matching is
// records/table-ref.ts's).

/**
 * A table ID or name → the Table (one GET /tables). Unknown → NOT_FOUND (exit 4);
 * a name shared by several tables → USAGE (exit 2) listing their IDs and workspaces.
 */
export async function resolveTable(client: ApiClient, ref: string): Promise<Table> {
  const { tables } = await client.tables();
  return pickTable(tables, ref);
}

/** A workspace ID or exact name → the Workspace (one GET /workspaces); unknown → exit 4, ambiguous → exit 2. */
export async function resolveWorkspace(client: ApiClient, ref: string): Promise<Workspace> {
  const { workspaces } = await client.workspaces();
  const byId = workspaces.find((workspace) => workspace.id === ref);
  if (byId) return byId;
  const named = workspaces.filter((workspace) => workspace.name === ref);
  if (named.length === 1) return named[0]!;
  if (named.length > 1) {
    throw new UsageError(`workspace name "${ref}" matches ${named.length} workspaces: ${named.map((w) => w.id).join(', ')}`, {
      hint: 'give the workspace ID instead of its name',
    });
  }
  throw new TdsError('NOT_FOUND', `no workspace with ID or name "${ref}" in this organization`, {
    reason: 'unknown-workspace',
  });
}
