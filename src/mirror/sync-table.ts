import type { DuckDBConnection } from '@duckdb/node-api';
import type { Context } from '../core/context.js';
import type { ApiClient } from '../http/client.js';
import type { Field, Table } from '../service/index.js';
import { finishPass } from './finish-pass.js';
import { pruneHistory } from './history/prune-history.js';
import { beginSync, endSync, type SyncBegun, type SyncEnded } from './history/sync-record.js';
import { newPass } from './new-pass.js';
import { prepareTable, type PrepareOptions, type PreparedTable } from './prepare-table.js';
import { readPages, UnknownField, type PassProgress } from './read-pages.js';
import { saveState, type PassState, type TableState } from './table-state.js';

export interface TableSyncOptions extends PrepareOptions {
  ctx: Context;
  client: ApiClient;
  /** --full: read every row and delete what the pass did not see */
  full: boolean;
  progress?: PassProgress;
  /** --follow: the schema read by the last round (undefined: read it now); it is read again when rows show a new field */
  knownFields?: Field[];
  /** Told the schema the table was synced with (for the next round of --follow). */
  onFields?(fields: Field[]): void;
  /** The table's rowCount was listed for this sync (not by an earlier round): an incremental pass must reach it. */
  listedNow?: boolean;
  /** --prune-history: versions replaced longer ago than this are dropped after the sync. */
  pruneHistoryMs?: number;
}

/** What syncing one table did (a row of the summary, and of _tds_syncs). */
export interface TableSyncResult extends SyncEnded {
  tableId: string;
  name: string;
  mirrorTable: string;
  /** The sync's ID in _tds_syncs (the `_syncId` of the versions it wrote). */
  syncId: number;
  seconds: number;
  startedAt: string;
}

/**
 * One table: its schema changes applied first, then a pass over its rows newest first (all of them
 * for a full pass; down to the watermark for an incremental one), written page group by page group
 * with the pass's progress; at the end of a complete pass, the rows it should have seen and did not
 * are deleted, and the watermark moves. The sync has an ID (a row of _tds_syncs) before it writes:
 * every version it writes carries it, and every version it replaces or deletes moves into the
 * table's history with it.
 */
export async function syncTable(table: Table, state: TableState | undefined, options: TableSyncOptions): Promise<TableSyncResult> {
  const started = performance.now();
  const startedAt = new Date().toISOString();
  const { connection } = options.db;
  const requestsBefore = options.client.stats.requests;
  let fields = options.knownFields ?? (await options.client.schema(table.id)).fields;
  const prepared = await prepareTable(table, state, fields, options);
  const { plan } = prepared;
  let { current } = prepared;
  const pass = choosePass(current, options);
  const syncId = await begin(connection, current, { tableId: table.id, mirrorTable: current.mirrorTable, startedAt, mode: pass.mode });
  let serviceNow: string | null = null;
  const before = { ...pass };
  let deleted = 0;
  let pruned: number | null = null;
  const summary = (complete: boolean): TableSyncResult => ({
    tableId: table.id,
    name: table.name,
    mirrorTable: current.mirrorTable,
    syncId,
    mode: pass.mode,
    complete,
    requests: options.client.stats.requests - requestsBefore,
    rowsRead: pass.rows - before.rows,
    inserted: pass.inserted - before.inserted,
    updated: pass.updated - before.updated,
    deleted,
    unfit: pass.unfit - before.unfit,
    pruned,
    seconds: (performance.now() - started) / 1000,
    startedAt,
  });
  try {
    ({ fields, current } = await readAll(table, { fields, plan, current }, pass, {
      ...options,
      syncId,
      onServiceTime: (at) => (serviceNow = at),
    }));
    options.onFields?.(fields);
    deleted = await finishPass(options.db, current, { pass, syncId, serviceRowCount: table.rowCount });
    if (options.pruneHistoryMs !== undefined) {
      pruned = await pruneHistory(connection, current, options.pruneHistoryMs, serviceNow ?? new Date().toISOString());
    }
  } catch (error) {
    await endSync(connection, syncId, { ...summary(false), deleted: 0 }).catch(() => undefined);
    throw error;
  }
  const done = summary(true);
  await endSync(connection, syncId, done);
  return done;
}

/**
 * The sync's row of _tds_syncs, and the pass saved as it starts (a --full killed before its first page
 * is still a full pass for the sync that continues it); a new pass forgets the rows a replaced one had seen.
 */
async function begin(connection: DuckDBConnection, state: TableState, sync: SyncBegun): Promise<number> {
  await connection.run('BEGIN TRANSACTION');
  try {
    if (state.pass?.cursor === null) await connection.run('DELETE FROM _tds_pass WHERE table_id = $1', [state.tableId]);
    const syncId = await beginSync(connection, sync);
    await saveState(connection, state);
    await connection.run('COMMIT');
    return syncId;
  } catch (error) {
    await connection.run('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/**
 * The pass's pages read and written; a row that holds a field the schema read before does not has the
 * schema read again and applied, and the pass goes on. Returns the schema and state it ended with.
 */
async function readAll(
  table: Table,
  prepared: PreparedTable & { fields: Field[] },
  pass: PassState,
  options: TableSyncOptions & { syncId: number; onServiceTime(at: string): void },
): Promise<{ fields: Field[]; current: TableState }> {
  let { fields, plan, current } = prepared;
  for (;;) {
    try {
      await readPages({
        ...options,
        table,
        state: current,
        pass,
        columns: plan.columns,
        fieldIds: new Set(fields.map((field) => field.id)),
        ...(options.listedNow ? { serviceRowCount: table.rowCount } : {}),
      });
      return { fields, current };
    } catch (error) {
      if (!(error instanceof UnknownField)) throw error;
      fields = (await options.client.schema(table.id)).fields;
      ({ plan, current } = await prepareTable(table, current, fields, options));
      current.pass = pass;
    }
  }
}

/**
 * An unfinished pass continues, unless --full is asked: that always starts a pass afresh, so that
 * rows deleted after an interrupted pass read them are found too. The first sync is full.
 */
function choosePass(state: TableState, options: TableSyncOptions): PassState {
  if (state.pass && !options.full) return state.pass;
  state.pass = newPass(options.full || state.lastSyncAt === null ? 'full' : 'incremental');
  return state.pass;
}
