import type { DuckDBConnection } from '@duckdb/node-api';
import type { Database } from '../duckdb/engine.js';
import { quoteIdent, quoteLiteral } from '../duckdb/sql-text.js';
import { UNFINISHED_STATUSES } from '../service/index.js';
import { CHANGE_KEY, REPLACED_AT_KEY, REPLACED_BY_KEY, tableColumns } from './history/history-objects.js';
import { unseenRows } from './pass-range.js';
import { saveState, type PassState, type TableState } from './table-state.js';
import { later, nextWatermark } from './watermark.js';

/** A complete pass, with the sync it belongs to and the row count the service gave at its start. */
export interface PassEnd {
  pass: PassState;
  syncId: number;
  serviceRowCount: number;
}

/**
 * The end of a complete pass, in one transaction: rows the pass should have seen and did not (a full
 * pass: every row; an incremental one: the rows newer than the oldest it read) move into the history
 * table as deleted (by this sync, at the start of the pass that found them gone) and leave the table;
 * the watermark moves (to the pass's start less the margin, see watermark.ts); the pass is cleared.
 * Returns the rows deleted.
 */
export async function finishPass(db: Database, state: TableState, end: PassEnd): Promise<number> {
  const { pass, syncId } = end;
  const { connection } = db;
  const target = quoteIdent(state.mirrorTable);
  const unseen = unseenRows(state.tableId, pass);
  await connection.run('BEGIN TRANSACTION');
  try {
    const deleted = await deleteGone(connection, state, { where: unseen, syncId, foundGoneAt: pass.startedAt });
    await connection.run(`DELETE FROM _tds_pass WHERE table_id = ${quoteLiteral(state.tableId)}`);
    state.newestCreatedAt = later(state.newestCreatedAt, pass.top);
    state.pendingSince = await pendingSince(db, state);
    state.watermark = nextWatermark({
      newestCreatedAt: state.newestCreatedAt,
      pendingSince: state.pendingSince,
      passStartedAt: pass.startedAt,
    });
    state.rowCount = Number((await connection.runAndReadAll(`SELECT count(*)::BIGINT AS n FROM ${target}`)).getRowObjectsJS()[0]?.n ?? 0);
    state.serviceRowCount = end.serviceRowCount;
    state.lastSyncAt = new Date().toISOString();
    if (pass.mode === 'full') {
      // every row read: the mirror is exact as of the pass's start, and a verification under way is moot
      state.verifiedAt = pass.startedAt ?? state.verifiedAt;
      state.verify = null;
    }
    state.pass = null;
    await saveState(connection, state);
    await connection.run('COMMIT');
    return deleted;
  } catch (error) {
    await connection.run('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/** Rows found gone, and when the pass that found them began (null: unknown, now). */
export interface GoneRows {
  /** SQL condition on the mirror table. */
  where: string;
  syncId: number;
  foundGoneAt: string | null;
}

/**
 * The rows `gone.where` picks move into the history table as deleted by the sync, at the start of the
 * pass that found them gone, and leave the table (inside the caller's transaction). Returns how many.
 */
export async function deleteGone(connection: DuckDBConnection, state: TableState, gone: GoneRows): Promise<number> {
  const target = quoteIdent(state.mirrorTable);
  const keys = (await tableColumns(connection, state.mirrorTable)).map((column) => quoteIdent(column.key)).join(', ');
  const foundGone = gone.foundGoneAt === null ? 'now()' : `${quoteLiteral(gone.foundGoneAt)}::TIMESTAMPTZ`;
  await connection.run(
    `INSERT INTO ${quoteIdent(state.historyTable!)} (${keys}, ${quoteIdent(REPLACED_BY_KEY)}, ${quoteIdent(CHANGE_KEY)}, ${quoteIdent(REPLACED_AT_KEY)}) ` +
      `SELECT ${keys}, ${gone.syncId}, 'deleted', ${foundGone} FROM ${target} WHERE ${gone.where}`,
  );
  // a DELETE answers with the number of rows it deleted
  const reader = await connection.runAndReadAll(`DELETE FROM ${target} WHERE ${gone.where}`);
  return Number(reader.getRows()[0]?.[0] ?? 0);
}

/** Creation time of the oldest row with an action cell still queued, waiting or running. */
async function pendingSince(db: Database, state: TableState): Promise<string | null> {
  const reader = await db.connection.runAndReadAll(
    `SELECT status_key FROM _tds_columns WHERE table_id = $1 AND status_key IS NOT NULL AND NOT removed`,
    [state.tableId],
  );
  const keys = reader.getRowObjectsJS().map((row) => quoteIdent(String(row.status_key)));
  if (keys.length === 0) return null;
  const unfinished = UNFINISHED_STATUSES.map((status) => quoteLiteral(status)).join(', ');
  const running = keys.map((key) => `${key} IN (${unfinished})`).join(' OR ');
  const oldest = await db.connection.runAndReadAll(`SELECT min("_createdAt") AS t FROM ${quoteIdent(state.mirrorTable)} WHERE ${running}`);
  const value = oldest.getRowObjectsJS()[0]?.t;
  return value === null || value === undefined ? null : new Date(value as Date).toISOString();
}
