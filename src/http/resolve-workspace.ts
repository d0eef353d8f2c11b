import { TdsError, UsageError } from '../core/errors.js';
import type { Workspace } from '../service/index.js';
import type { ApiClient } from './client.js';

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
