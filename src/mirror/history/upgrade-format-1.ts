import type { DuckDBConnection } from '@duckdb/node-api';
import { quoteIdent } from '../../duckdb/index.js';
import { takenNames } from '../table-name.js';
import { createHistoryTable, createMacros, historyNames, SYNC_ID_KEY } from './history-objects.js';
import { versionColumns } from './retyped-columns.js';
import { COMPLETE_PASS } from '../table-state.js';

// A mirror of format 1 (before history) made one of format 2, in place and in one transaction: a crash
// leaves it as it was or upgraded, never half. Every row is kept, as the version written by its table's
// last sync; _tds_syncs gets sync IDs in the order the syncs ran; each table gets T__history (empty)
// and its two macros.

/** The columns format 2 adds to _tds_tables. */
export const TABLES_COLUMNS_2 = ['history_table', 'at_sync_macro', 'at_macro'] as const;

/** _tds_syncs of format 2: a sync ID first; a sync not ended (killed) has no ended_at. */
export const SYNCS_TABLE_2 = `CREATE TABLE IF NOT EXISTS _tds_syncs (
    sync_id BIGINT PRIMARY KEY,
    table_id VARCHAR NOT NULL,
    mirror_table VARCHAR NOT NULL,
    started_at TIMESTAMPTZ NOT NULL,
    ended_at TIMESTAMPTZ,
    mode VARCHAR NOT NULL,
    complete BOOLEAN NOT NULL,
    requests BIGINT,
    rows_read BIGINT,
    inserted BIGINT,
    updated BIGINT,
    deleted BIGINT,
    unfit BIGINT,
    pruned BIGINT
  )`;

const SYNC_COLUMNS_1 =
  'table_id, mirror_table, started_at, ended_at, mode, complete, requests, rows_read, inserted, updated, deleted, unfit';

/** Upgrades within the caller's connection; `done` writes the new format's mark (in the same transaction). */
export async function upgradeFormat1(connection: DuckDBConnection, done: () => Promise<void>): Promise<void> {
  await connection.run('BEGIN TRANSACTION');
  try {
    for (const column of TABLES_COLUMNS_2) await connection.run(`ALTER TABLE _tds_tables ADD COLUMN ${column} VARCHAR`);
    await connection.run('ALTER TABLE _tds_syncs RENAME TO _tds_syncs_1');
    await connection.run(SYNCS_TABLE_2);
    await connection.run(
      `INSERT INTO _tds_syncs (sync_id, ${SYNC_COLUMNS_1}) ` +
        `SELECT row_number() OVER (ORDER BY started_at, ended_at, rowid), ${SYNC_COLUMNS_1} FROM _tds_syncs_1`,
    );
    await connection.run('DROP TABLE _tds_syncs_1');
    const taken = await takenNames(connection);
    for (const table of await mirrorTables(connection)) {
      const syncId = table.lastSyncId ?? (await recordUnfinishedSync(connection, table));
      const target = quoteIdent(table.mirrorTable);
      await connection.run(`ALTER TABLE ${target} ADD COLUMN ${quoteIdent(SYNC_ID_KEY)} BIGINT DEFAULT ${syncId}`);
      await connection.run(`ALTER TABLE ${target} ALTER COLUMN ${quoteIdent(SYNC_ID_KEY)} DROP DEFAULT`);
      const names = historyNames(table.mirrorTable, taken);
      await createHistoryTable(connection, table.mirrorTable, names);
      await createMacros(connection, table.mirrorTable, names, await versionColumns(connection, table.mirrorTable));
      await connection.run('UPDATE _tds_tables SET history_table = $2, at_sync_macro = $3, at_macro = $4 WHERE table_id = $1', [
        table.tableId,
        names.historyTable,
        names.atSyncMacro,
        names.atMacro,
      ]);
    }
    await done();
    await connection.run('COMMIT');
  } catch (error) {
    await connection.run('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

interface MirrorTable {
  tableId: string;
  mirrorTable: string;
  lastSyncId: number | null;
  passMode: string | null;
  startedAt: string | null;
}

/** The tables of _tds_tables that the database holds (one the user dropped is passed over), with their last sync. */
async function mirrorTables(connection: DuckDBConnection): Promise<MirrorTable[]> {
  const reader = await connection.runAndReadAll(
    `SELECT t.table_id, t.mirror_table, t.pass_mode, CAST(coalesce(t.pass_started_at, t.last_sync_at) AS VARCHAR) AS started_at, ` +
      `(SELECT max(s.sync_id) FROM _tds_syncs s WHERE s.table_id = t.table_id) AS last_sync_id FROM _tds_tables t ` +
      `WHERE t.mirror_table IN (SELECT table_name FROM duckdb_tables() WHERE database_name = current_database() AND schema_name = 'main') ` +
      `ORDER BY t.mirror_table`,
  );
  return reader.getRowObjectsJS().map((row) => ({
    tableId: String(row.table_id),
    mirrorTable: String(row.mirror_table),
    lastSyncId: row.last_sync_id === null ? null : Number(row.last_sync_id),
    passMode: row.pass_mode === null ? null : String(row.pass_mode),
    startedAt: row.started_at === null ? null : String(row.started_at),
  }));
}

/** A table with rows but no sync recorded (its first sync was killed): that sync, recorded unfinished. */
async function recordUnfinishedSync(connection: DuckDBConnection, table: MirrorTable): Promise<number> {
  const reader = await connection.runAndReadAll('SELECT coalesce(max(sync_id), 0)::BIGINT + 1 AS id FROM _tds_syncs');
  const syncId = Number(reader.getRowObjectsJS()[0]!.id);
  await connection.run(
    `INSERT INTO _tds_syncs (sync_id, table_id, mirror_table, started_at, mode, complete) ` +
      `VALUES ($1, $2, $3, coalesce(CAST($4 AS TIMESTAMPTZ), now()), $5, false)`,
    [syncId, table.tableId, table.mirrorTable, table.startedAt, table.passMode ?? COMPLETE_PASS],
  );
  return syncId;
}
