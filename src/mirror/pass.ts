import type { DuckDBConnection } from '@duckdb/node-api';
import { type Database, quoteIdent, quoteLiteral } from '../duckdb/index.js';
import { UNFINISHED_STATUSES } from '../service/index.js';
import { CHANGE_KEY, REPLACED_AT_KEY, REPLACED_BY_KEY, SYNC_ID_KEY, tableColumns } from './history/history-objects.js';
import { fitTableMemory } from './index-memory.js';
import { COMPLETE_PASS, saveState, type PassState, type TableState } from './table-state.js';

// A pass over a table's rows: how it starts (newPass), the rows a complete one should have seen
// (unseenRows), its end (finishPass: deletions, the watermark, verified_at), and the watermark that
// places the next incremental pass's stop. The pages themselves are read by read-pages.ts.

/** A pass that has read nothing yet. */
export function newPass(mode: PassState['mode']): PassState {
  return {
    mode,
    cursor: null,
    startedAt: null,
    top: null,
    oldest: null,
    requests: 0,
    rows: 0,
    inserted: 0,
    updated: 0,
    unfit: 0,
  };
}

/**
 * The mirror rows a complete pass should have seen and did not (SQL condition on the mirror table): a
 * full pass, every row it did not see; an incremental one, those newer than the oldest row it read. No
 * other sync writes the mirror meanwhile (one at a time: claimMirror), so such a row is gone from the service.
 * A pass that began on an empty table notes no IDs (FROM_EMPTY): every row of the table is one it read.
 */
export function unseenRows(tableId: string, pass: Pick<PassState, 'mode' | 'oldest'>): string {
  const inRange =
    pass.mode === COMPLETE_PASS ? 'true' : pass.oldest === null ? 'false' : `"_createdAt" > ${quoteLiteral(pass.oldest)}::TIMESTAMPTZ`;
  const noted = `SELECT row_id FROM _tds_pass WHERE table_id = ${quoteLiteral(tableId)}`;
  return `${inRange} AND ${quoteLiteral(FROM_EMPTY)} NOT IN (${noted}) AND "_id" NOT IN (${noted})`;
}

/**
 * The row of _tds_pass (no row's ID) that says its pass began on an empty table, and so notes no IDs:
 * for a first sync of 1,000,000 rows, noting each cost a million more rows written, checkpointed and
 * compared with the table at the end (a fifth of the CPU of its writes).
 */
export const FROM_EMPTY = '';

/**
 * Whether the pass of `tableId` began on an empty table; marked so (FROM_EMPTY) when `rowsNow`, the
 * table's rows, is 0 (it holds no row the pass has not read, and will hold none: one sync at a time
 * writes the mirror).
 */
export async function beganOnEmpty(connection: DuckDBConnection, tableId: string, rowsNow?: number): Promise<boolean> {
  const marked = `SELECT 1 FROM _tds_pass WHERE table_id = ${quoteLiteral(tableId)} AND row_id = ${quoteLiteral(FROM_EMPTY)}`;
  if (rowsNow === 0) {
    await connection.run(`INSERT INTO _tds_pass SELECT ${quoteLiteral(tableId)}, ${quoteLiteral(FROM_EMPTY)} WHERE NOT EXISTS (${marked})`);
    return true;
  }
  const reader = await connection.runAndReadAll(`SELECT EXISTS (${marked}) AS marked`);
  return reader.getRowObjectsJS()[0]?.marked === true;
}

/**
 * How far below the time it can vouch for an incremental sync reads again. Webhook rows keep the time
 * of their request as their creation time and become visible up to about 30 s later (docs/service-api.md
 * 4.7), so a row can appear after a sync with a creation time older than rows that sync saw. Twice
 * that window, since the service says "about". Every time here is the service's: its rows' creation
 * times and the Date of its answers, never this machine's clock, which may run ahead of the service's
 * by any amount (a watermark ahead of the service's time would hide the rows created below it).
 */
export const WATERMARK_MARGIN_MS = 60_000;

/** What the end of a complete pass knows to place the next incremental sync's stop. */
export interface WatermarkInputs {
  /** Creation time of the newest row synced (the service's clock). */
  newestCreatedAt: string | null;
  /** Creation time of the oldest row with an action cell still queued, waiting or running. */
  pendingSince: string | null;
  /** When the pass began on the service's clock: the Date of its first answer (null when it had none). */
  passStartedAt: string | null;
}

/**
 * Where the next incremental sync stops reading: below every row that might not have been visible
 * when this pass began, and below every row whose action cells were not final yet.
 *
 * A row created more than the intake window before the pass began was visible when it began, so the
 * pass read it (or an earlier pass did): the next one needs only the rows created since the pass
 * began, less the margin. When the pass began is the later of two readings on the service's clock
 * that each can only be early: the Date of the pass's first answer (whole seconds, cut down) and the
 * creation time of the newest row synced (never later than the service's now, but early when the
 * table has been quiet). Either alone is safe; the later one is the tighter: after a burst, once the
 * margin has passed since, an idle sync reads one page instead of every row of the minute before the
 * newest. A row with an unfinished action is read again until it settles, however old.
 */
export function nextWatermark({ newestCreatedAt, pendingSince, passStartedAt }: WatermarkInputs): string | null {
  const began = Math.max(instant(passStartedAt), instant(newestCreatedAt));
  const bound = pendingSince === null ? began : Math.min(began, Date.parse(pendingSince));
  // nothing to vouch for (an empty table read with no Date): the next pass reads every row
  return bound === -Infinity ? null : new Date(bound - WATERMARK_MARGIN_MS).toISOString();
}

const instant = (iso: string | null): number => (iso === null ? -Infinity : Date.parse(iso));

/** An HTTP Date header (`Tue, 03 Mar 2026 12:00:00 GMT`) as ISO text; null when there is none or it is not a date. */
export function serviceDate(header: string | undefined): string | null {
  const ms = header === undefined ? Number.NaN : Date.parse(header);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}

/** Whether a page whose oldest row was created at `createdAt` reaches below the watermark (reading can stop). */
export function reachesWatermark(createdAt: string, watermark: string | null): boolean {
  return watermark !== null && Date.parse(createdAt) < Date.parse(watermark);
}

/** The later of two instants (ISO text), either possibly missing. */
export function later(a: string | null, b: string | null): string | null {
  if (a === null) return b;
  if (b === null) return a;
  return Date.parse(a) >= Date.parse(b) ? a : b;
}

/** A complete pass, with the sync it belongs to and the row count the service gave at its start. */
export interface PassEnd {
  pass: PassState;
  syncId: number;
  serviceRowCount: number;
  /**
   * --follow with verification: an action cell pending on a row older than the watermark, as a
   * verification page wrote it (a re-run of an old row), is left to the verification's next pass: the
   * watermark does not go down to it, or every round would read every page down to it until it settles.
   */
  pendingLeftToVerification?: boolean;
}

/**
 * The end of a complete pass, in one transaction: rows the pass should have seen and did not (a full
 * pass: every row; an incremental one: the rows newer than the oldest it read) move into the history
 * table as deleted (by this sync, at the start of the pass that found them gone) and leave the table;
 * the watermark moves (to the pass's start less the margin, nextWatermark above); the pass is cleared.
 * Returns the rows deleted.
 */
export async function finishPass(db: Database, state: TableState, end: PassEnd): Promise<number> {
  const { pass, syncId } = end;
  const { connection } = db;
  const target = quoteIdent(state.mirrorTable);
  const unseen = unseenRows(state.tableId, pass);
  await connection.run('BEGIN TRANSACTION');
  try {
    // nothing to look for when the pass began on an empty table (a scan of every row, a first sync's last peak of memory)
    const fromEmpty = await beganOnEmpty(connection, state.tableId);
    const deleted = fromEmpty ? 0 : await deleteGone(connection, state, { where: unseen, syncId, foundGoneAt: pass.startedAt });
    await connection.run(`DELETE FROM _tds_pass WHERE table_id = ${quoteLiteral(state.tableId)}`);
    state.newestCreatedAt = later(state.newestCreatedAt, pass.top);
    const above = nextWatermark({ newestCreatedAt: state.newestCreatedAt, pendingSince: null, passStartedAt: pass.startedAt });
    state.pendingSince = await pendingSince(db, state, end.pendingLeftToVerification ? above : null);
    state.watermark = nextWatermark({
      newestCreatedAt: state.newestCreatedAt,
      pendingSince: state.pendingSince,
      passStartedAt: pass.startedAt,
    });
    state.rowCount = Number((await connection.runAndReadAll(`SELECT count(*)::BIGINT AS n FROM ${target}`)).getRowObjectsJS()[0]?.n ?? 0);
    state.serviceRowCount = end.serviceRowCount;
    state.lastSyncAt = new Date().toISOString();
    if (pass.mode === COMPLETE_PASS) {
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
  // an INSERT answers with the number of rows it inserted
  const reader = await connection.runAndReadAll(
    `INSERT INTO ${quoteIdent(state.historyTable!)} (${keys}, ${quoteIdent(REPLACED_BY_KEY)}, ${quoteIdent(CHANGE_KEY)}, ${quoteIdent(REPLACED_AT_KEY)}) ` +
      `SELECT ${keys}, ${gone.syncId}, 'deleted', ${foundGone} FROM ${target} WHERE ${gone.where}`,
  );
  const found = Number(reader.getRows()[0]?.[0] ?? 0);
  if (found === 0) return 0;
  // a deletion changes the index: DuckDB's limit is raised for it first (index-memory.ts)
  const rows = await connection.runAndReadAll(`SELECT count(*)::BIGINT AS n FROM ${target}`);
  await fitTableMemory(connection, Number(rows.getRowObjectsJS()[0]?.n ?? 0));
  await connection.run(`DELETE FROM ${target} WHERE ${gone.where}`);
  return found;
}

/**
 * Creation time of the oldest row with an action cell still queued, waiting or running; rows created
 * before `verifiedBelow` whose version a verification page wrote are left out.
 */
async function pendingSince(db: Database, state: TableState, verifiedBelow: string | null): Promise<string | null> {
  const reader = await db.connection.runAndReadAll(
    `SELECT status_key FROM _tds_columns WHERE table_id = $1 AND status_key IS NOT NULL AND NOT removed`,
    [state.tableId],
  );
  const keys = reader.getRowObjectsJS().map((row) => quoteIdent(String(row.status_key)));
  if (keys.length === 0) return null;
  const unfinished = UNFINISHED_STATUSES.map((status) => quoteLiteral(status)).join(', ');
  const running = keys.map((key) => `${key} IN (${unfinished})`).join(' OR ');
  const verified =
    verifiedBelow === null
      ? 'false'
      : `"_createdAt" < ${quoteLiteral(verifiedBelow)}::TIMESTAMPTZ AND ${quoteIdent(SYNC_ID_KEY)} IN (SELECT sync_id FROM _tds_syncs WHERE mode = 'verify')`;
  const oldest = await db.connection.runAndReadAll(
    `SELECT min("_createdAt") AS t FROM ${quoteIdent(state.mirrorTable)} WHERE (${running}) AND NOT (${verified})`,
  );
  const value = oldest.getRowObjectsJS()[0]?.t;
  return value === null || value === undefined ? null : new Date(value as Date).toISOString();
}
