// src/mirror/: the mirror, a DuckDB file of the service's tables. Its surface: the mirror opened
// (mirror-db.ts: openMirror for readers, requireMirror, waitOn), its tables' states (table-state.ts) and
// stored fields (apply-schema.ts, schema-drift.ts), `tds sync` (sync-run.ts: runSync, syncBeforeReading;
// a table's sync in sync-table.ts, its pages in read-pages.ts and mirror-writer.ts, --follow's
// verification in follow-verify.ts), `tds sql` (run-sql.ts) and push's keys read from it (mirror-keys.ts);
// history and `tds diff` have their own folders (history/, diff/). Readers import this without the sync:
// what a sync or a query runs is loaded by the first call of the functions below.

import type { Context } from '../core/index.js';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { ApiClient } from '../http/index.js';
import type { MirrorKeys } from './mirror-keys.js';
import type { SqlRequest } from './run-sql.js';
import type { StoredField } from './schema-drift.js';
import type { SyncRequest } from './sync-run.js';

export { openMirror, requireMirror, waitOn, type OpenMirror } from './mirror-db.js';
export type { MirrorKeys } from './mirror-keys.js';
export type { StoredField } from './schema-drift.js';
export type { SyncProgress, SyncSummary } from './sync-report.js';
export type { TableSyncResult } from './sync-table.js';
export { loadStates, namedStates, staleFields, staleText, type StaleFields, type TableState } from './table-state.js';

/** `tds sync`: see sync-run.ts. */
export async function runSync(ctx: Context, client: ApiClient, request: SyncRequest): Promise<void> {
  return (await import('./sync-run.js')).runSync(ctx, client, request);
}

/** The sync a reader (stats, check) runs first: see sync-run.ts. */
export async function syncBeforeReading(ctx: Context, client: ApiClient, db: string, tables: string[]): Promise<void> {
  return (await import('./sync-run.js')).syncBeforeReading(ctx, client, db, tables);
}

/** `tds sql`: see run-sql.ts. */
export async function runSql(ctx: Context, request: SqlRequest): Promise<void> {
  return (await import('./run-sql.js')).runSql(ctx, request);
}

/** The keys push looks up in the mirror, synced first: see mirror-keys.ts. */
export async function openMirrorKeys(ctx: Context, client: ApiClient, path: string): Promise<MirrorKeys> {
  return new (await import('./mirror-keys.js')).MirrorKeys(ctx, client, path);
}

/** The fields the mirror stores for a table: see apply-schema.ts. */
export async function loadFields(connection: DuckDBConnection, tableId: string): Promise<StoredField[]> {
  return (await import('./apply-schema.js')).loadFields(connection, tableId);
}
