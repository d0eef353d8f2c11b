import type { Table, Workspace } from '../service/index.js';
import { pickTable, pickWorkspace } from '../records/index.js';
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

/** A workspace ID or name → the Workspace (one GET /workspaces), as pickWorkspace finds it. */
export async function resolveWorkspace(client: ApiClient, ref: string): Promise<Workspace> {
  const { workspaces } = await client.workspaces();
  return pickWorkspace(workspaces, ref);
}
