import type { DuckDBConnection } from '@duckdb/node-api';

// A table's row of _tds_syncs: written when its sync begins (so the sync has its ID before it writes a
// version, and a sync killed midway is still listed, with no end), completed when it ends.

/** A verification is a page of --follow's re-reading (follow-verify.ts). */
export type SyncMode = 'full' | 'incremental' | 'verify';

export interface SyncBegun {
  tableId: string;
  mirrorTable: string;
  /** When the sync began (this machine's clock: the record of when it ran). */
  startedAt: string;
  mode: SyncMode;
}

export interface SyncEnded {
  mode: SyncMode;
  complete: boolean;
  requests: number;
  rowsRead: number;
  inserted: number;
  updated: number;
  deleted: number;
  unfit: number;
  /** Versions dropped by --prune-history (null: not asked). */
  pruned: number | null;
}

/** The next sync ID (unique and increasing across the mirror's tables), its row written. */
export async function beginSync(connection: DuckDBConnection, sync: SyncBegun): Promise<number> {
  const reader = await connection.runAndReadAll('SELECT coalesce(max(sync_id), 0)::BIGINT + 1 AS id FROM _tds_syncs');
  const syncId = Number(reader.getRowObjectsJS()[0]!.id);
  await connection.run(
    'INSERT INTO _tds_syncs (sync_id, table_id, mirror_table, started_at, mode, complete) VALUES ($1, $2, $3, $4::TIMESTAMPTZ, $5, false)',
    [syncId, sync.tableId, sync.mirrorTable, sync.startedAt, sync.mode],
  );
  return syncId;
}

export async function endSync(connection: DuckDBConnection, syncId: number, sync: SyncEnded): Promise<void> {
  await connection.run(
    'UPDATE _tds_syncs SET ended_at = now(), mode = $2, complete = $3, requests = $4, rows_read = $5, inserted = $6, ' +
      'updated = $7, deleted = $8, unfit = $9, pruned = $10 WHERE sync_id = $1',
    [syncId, sync.mode, sync.complete, sync.requests, sync.rowsRead, sync.inserted, sync.updated, sync.deleted, sync.unfit, sync.pruned],
  );
}
