import type { Context } from '../core/context.js';
import { UsageError } from '../core/errors.js';
import type { Database } from '../duckdb/engine.js';
import { quoteIdent, quoteLiteral } from '../duckdb/sql-text.js';
import type { ApiClient } from '../http/client.js';
import type { HeaderMode } from '../records/shape-options.js';
import { UNFINISHED_STATUSES, type Field, type Table } from '../service/index.js';
import { applySchema, createTableSql, loadFields, saveFields } from './apply-schema.js';
import { readPages, UnknownField, type PassProgress } from './read-pages.js';
import { planSchema, type SchemaPlan } from './schema-drift.js';
import { mirrorTableName } from './table-name.js';
import { saveState, type PassState, type TableState } from './table-state.js';
import { later, nextWatermark } from './watermark.js';
import { unseenRows } from './pass-range.js';

export interface TableSyncOptions {
  ctx: Context;
  client: ApiClient;
  db: Database;
  /** --header; undefined: the table's own, or labels for a new one */
  header?: HeaderMode;
  /** --full: read every row and delete what the pass did not see */
  full: boolean;
  /** mirror table names in use (this run adds the names it gives) */
  taken: Set<string>;
  /** lines for stderr (schema changes, a restarted pass) */
  say(line: string): void;
  progress?: PassProgress;
  /** --follow: the schema read by the last round (undefined: read it now); it is read again when rows show a new field */
  knownFields?: Field[];
  /** Told the schema the table was synced with (for the next round of --follow). */
  onFields?(fields: Field[]): void;
  /** The table's rowCount was listed for this sync (not by an earlier round): an incremental pass must reach it. */
  listedNow?: boolean;
}

/** What syncing one table did (a row of the summary, and of _tds_syncs). */
export interface TableSyncResult {
  tableId: string;
  name: string;
  mirrorTable: string;
  mode: PassState['mode'];
  complete: boolean;
  requests: number;
  rowsRead: number;
  inserted: number;
  updated: number;
  deleted: number;
  unfit: number;
  seconds: number;
  startedAt: string;
}

/**
 * One table: its schema changes applied first, then a pass over its rows newest first (all of them
 * for a full pass; down to the watermark for an incremental one), written page group by page group
 * with the pass's progress; at the end of a complete pass, the rows it should have seen and did not
 * are deleted, and the watermark moves.
 */
export async function syncTable(table: Table, state: TableState | undefined, options: TableSyncOptions): Promise<TableSyncResult> {
  const started = performance.now();
  const startedAt = new Date().toISOString();
  const requestsBefore = options.client.stats.requests;
  let fields = options.knownFields ?? (await options.client.schema(table.id)).fields;
  let { plan, current } = await prepareTable(table, state, fields, options);
  const pass = choosePass(current, options);
  // a new pass forgets the rows a replaced one had seen
  if (pass.cursor === null) await options.db.connection.run('DELETE FROM _tds_pass WHERE table_id = $1', [table.id]);
  const before = { ...pass };
  const summary = (complete: boolean): TableSyncResult => ({
    tableId: table.id,
    name: table.name,
    mirrorTable: current.mirrorTable,
    mode: pass.mode,
    complete,
    requests: options.client.stats.requests - requestsBefore,
    rowsRead: pass.rows - before.rows,
    inserted: pass.inserted - before.inserted,
    updated: pass.updated - before.updated,
    deleted: complete ? current.lastDeleted : 0,
    unfit: pass.unfit - before.unfit,
    seconds: (performance.now() - started) / 1000,
    startedAt,
  });
  try {
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
        break;
      } catch (error) {
        if (!(error instanceof UnknownField)) throw error;
        // a row holds a field the schema read before does not: read it again, then go on
        fields = (await options.client.schema(table.id)).fields;
        ({ plan, current } = await prepareTable(table, current, fields, options));
        current.pass = pass;
      }
    }
    options.onFields?.(fields);
    await finishPass(options.db, current, pass, table);
  } catch (error) {
    await recordSync(options.db, summary(false)).catch(() => undefined);
    throw error;
  }
  const done = summary(true);
  await recordSync(options.db, done);
  return done;
}

interface PreparedTable {
  plan: SchemaPlan;
  current: TableState & { lastDeleted: number };
}

/** The table created, or its columns changed to the service's schema, in one transaction with its state. */
async function prepareTable(
  table: Table,
  state: TableState | undefined,
  fields: Awaited<ReturnType<ApiClient['schema']>>['fields'],
  options: TableSyncOptions,
): Promise<PreparedTable> {
  const { connection } = options.db;
  if (state && options.header && state.header !== options.header) {
    throw new UsageError(`the mirror table ${state.mirrorTable} has keys by ${state.header}, not by ${options.header}`, {
      hint: `leave out --header (or give --header ${state.header}), or sync into another --db`,
    });
  }
  const header = state?.header ?? options.header ?? 'label';
  const stored = state ? await loadFields(connection, table.id) : [];
  const plan = planSchema(stored, fields, header);
  const current: PreparedTable['current'] = {
    ...(state ?? newState(table, options)),
    name: table.name,
    workspaceId: table.workspaceId,
    workspaceName: table.workspaceName,
    lastDeleted: 0,
  };
  await connection.run('BEGIN TRANSACTION');
  try {
    if (!state) await connection.run(createTableSql(current.mirrorTable, plan.columns));
    const lines = state ? await applySchema(connection, current.mirrorTable, stored, plan) : [];
    // a cast is not the service's value in the new type (a number 1 cast to text is "1.0"): a full
    // pass, saved with the change, writes every row again as the service gives it
    if (plan.changes.some((change) => change.kind === 'retyped')) current.pass = newPass('full');
    await saveFields(connection, table.id, plan.fields);
    await saveState(connection, current);
    await connection.run('COMMIT');
    for (const line of lines) options.say(`${current.mirrorTable}: ${line}`);
  } catch (error) {
    await connection.run('ROLLBACK').catch(() => undefined);
    throw error;
  }
  return { plan, current };
}

function newState(table: Table, options: TableSyncOptions): TableState {
  const mirrorTable = mirrorTableName(table, options.taken);
  options.taken.add(mirrorTable);
  return {
    tableId: table.id,
    name: table.name,
    workspaceId: table.workspaceId,
    workspaceName: table.workspaceName,
    mirrorTable,
    header: options.header ?? 'label',
    newestCreatedAt: null,
    pendingSince: null,
    watermark: null,
    rowCount: null,
    serviceRowCount: null,
    lastSyncAt: null,
    pass: null,
  };
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

function newPass(mode: PassState['mode']): PassState {
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
 * The end of a complete pass, in one transaction: rows the pass should have seen and did not are
 * deleted (a full pass: every row; an incremental one: the rows newer than the oldest it read), the
 * watermark moves (to the pass's start less the margin, see watermark.ts), the pass is cleared.
 */
async function finishPass(db: Database, state: TableState & { lastDeleted: number }, pass: PassState, table: Table): Promise<void> {
  const { connection } = db;
  const target = quoteIdent(state.mirrorTable);
  const id = quoteLiteral(state.tableId);
  await connection.run('BEGIN TRANSACTION');
  try {
    // a DELETE answers with the number of rows it deleted
    const deleted = await connection.runAndReadAll(`DELETE FROM ${target} WHERE ${unseenRows(state.tableId, pass)}`);
    state.lastDeleted = Number(deleted.getRows()[0]?.[0] ?? 0);
    await connection.run(`DELETE FROM _tds_pass WHERE table_id = ${id}`);
    state.newestCreatedAt = later(state.newestCreatedAt, pass.top);
    state.pendingSince = await pendingSince(db, state);
    state.watermark = nextWatermark({
      newestCreatedAt: state.newestCreatedAt,
      pendingSince: state.pendingSince,
      passStartedAt: pass.startedAt,
    });
    state.rowCount = Number((await connection.runAndReadAll(`SELECT count(*)::BIGINT AS n FROM ${target}`)).getRowObjectsJS()[0]?.n ?? 0);
    state.serviceRowCount = table.rowCount;
    state.lastSyncAt = new Date().toISOString();
    state.pass = null;
    await saveState(connection, state);
    await connection.run('COMMIT');
  } catch (error) {
    await connection.run('ROLLBACK').catch(() => undefined);
    throw error;
  }
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

async function recordSync(db: Database, result: TableSyncResult): Promise<void> {
  await db.connection.run('INSERT INTO _tds_syncs VALUES ($1, $2, $3::TIMESTAMPTZ, now(), $4, $5, $6, $7, $8, $9, $10, $11)', [
    result.tableId,
    result.mirrorTable,
    result.startedAt,
    result.mode,
    result.complete,
    result.requests,
    result.rowsRead,
    result.inserted,
    result.updated,
    result.deleted,
    result.unfit,
  ]);
}
