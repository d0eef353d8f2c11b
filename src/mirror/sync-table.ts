import type { DuckDBConnection } from '@duckdb/node-api';
import { quoteIdent, quoteLiteral, type Database } from '../duckdb/index.js';
import type { Context } from '../core/index.js';
import type { ApiClient } from '../http/index.js';
import type { Field, Table } from '../service/index.js';
import { finishPass, newPass } from './pass.js';
import type { MirrorAccess } from './mirror-db.js';
import { prepareTable, type PrepareOptions, type PreparedTable } from './apply-schema.js';
import { readPages, UnknownField, type PassProgress } from './read-pages.js';
import { COMPLETE_PASS, formatAge, saveState, type PassState, type TableState } from './table-state.js';
import {
  beginSync,
  createMacros,
  endSync,
  hasTable,
  REPLACED_AT_KEY,
  REPLACED_BY_KEY,
  type SyncBegun,
  type SyncEnded,
} from './history/history-objects.js';
import { versionColumns } from './history/retyped-columns.js';

export interface TableSyncOptions extends Omit<PrepareOptions, 'db'> {
  /** The mirror, held for each step that writes it (never while the service is read). */
  mirror: MirrorAccess;
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
  /** --max-stale of a one-shot sync: a table verified longer ago than this gets a full pass (undefined: off). */
  maxStaleMs?: number;
  /** A plain sync: a mirror left holding more rows than the service listed gets a full pass in the same sync. */
  deletionsByCount?: boolean;
  /** --follow with verification: action cells pending on old rows a verification page wrote are left to it (PassEnd). */
  pendingLeftToVerification?: boolean;
  /**
   * Tables synced at once take their mirror tables' names in their order: this one's schema is applied
   * once `preparedBefore` (the table before it) is done, and `onPrepared` told when this one's is.
   */
  preparedBefore?: Promise<void>;
  onPrepared?(): void;
  /** --follow: the bound it keeps verified_at within (ms of the service's clock; null: off), recorded as the table's max_stale. */
  followBoundMs?: number | null;
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
  /** _tds_tables.verified_at after the sync. */
  verifiedAt: string | null;
  /** _tds_tables.max_stale: the bound a follower keeps verified_at within (ms of the service's clock); null: none. */
  maxStaleMs: number | null;
  /** Rows the service lists that the mirror lacks after the sync read every page it could (0: none). */
  missing: number;
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
  const { mirror } = options;
  const requestsBefore = options.client.stats.requests;
  const { fields: known, prepared, passes, syncId } = await beginTable(table, state, { ...options, startedAt });
  let fields = known;
  const { plan } = prepared;
  let { current } = prepared;
  let serviceNow: string | null = null;
  let deleted = 0;
  let missing = 0;
  let pruned: number | null = null;
  const summary = (complete: boolean): TableSyncResult => ({
    tableId: table.id,
    name: table.name,
    mirrorTable: current.mirrorTable,
    syncId,
    mode: passes.mode,
    complete,
    requests: options.client.stats.requests - requestsBefore,
    ...passes.counts(),
    deleted,
    pruned,
    seconds: (performance.now() - started) / 1000,
    startedAt,
    verifiedAt: current.verifiedAt,
    maxStaleMs: current.maxStaleMs,
    missing,
  });
  try {
    ({ fields, current, deleted, missing } = await readPasses(table, { fields, plan, current }, passes, {
      ...options,
      syncId,
      onServiceTime: (at) => (serviceNow = at),
    }));
    options.onFields?.(fields);
    const pruneMs = options.pruneHistoryMs;
    if (pruneMs !== undefined) {
      pruned = await mirror.use((db) => pruneHistory(db.connection, current, pruneMs, serviceNow ?? new Date().toISOString()));
    }
  } catch (error) {
    await mirror
      .use((db) => endSync(db.connection, syncId, { ...summary(false), deleted: 0 }, options.client.serviceNow()))
      .catch(() => undefined);
    throw error;
  }
  const done = summary(true);
  await mirror.use((db) => endSync(db.connection, syncId, done, options.client.serviceNow()));
  return done;
}

/**
 * The table's schema read (unless known) and applied, its pass chosen, and the sync begun (its row of
 * _tds_syncs), after the table before it when tables are synced at once (preparedBefore).
 */
async function beginTable(
  table: Table,
  state: TableState | undefined,
  options: TableSyncOptions & { startedAt: string },
): Promise<{ fields: Field[]; prepared: PreparedTable; passes: SyncPasses; syncId: number }> {
  try {
    const fields = options.knownFields ?? (await options.client.schema(table.id)).fields;
    await options.preparedBefore;
    return await options.mirror.use(async (db) => {
      const prepared = await prepareTable(table, state, fields, { ...options, db });
      if (options.followBoundMs !== undefined) prepared.current.maxStaleMs = options.followBoundMs;
      const passes = new SyncPasses(choosePass(prepared.current, options));
      const syncId = await begin(db.connection, prepared.current, {
        tableId: table.id,
        mirrorTable: prepared.current.mirrorTable,
        startedAt: options.startedAt,
        mode: passes.pass.mode,
      });
      return { fields, prepared, passes, syncId };
    });
  } finally {
    options.onPrepared?.();
  }
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
 * The passes of one sync: the one chosen, then, when it leaves the mirror off the service's count, an
 * incremental one from the newest row (after a pass an earlier sync began) or a full one (after an
 * incremental pass that left the mirror holding more rows than the service lists).
 */
class SyncPasses {
  private readonly earlier = { rowsRead: 0, inserted: 0, updated: 0, unfit: 0 };
  private before: PassState;
  /** Whether the pass is one an earlier sync began and this one continues from its saved cursor. */
  continued: boolean;
  private wasComplete: boolean;

  constructor(public pass: PassState) {
    this.before = { ...pass };
    this.continued = pass.cursor !== null;
    this.wasComplete = pass.mode === COMPLETE_PASS;
  }

  /** The sync's mode: complete when any of its passes read every row. */
  get mode(): PassState['mode'] {
    return this.wasComplete ? COMPLETE_PASS : this.pass.mode;
  }

  /** The figures of the sync's passes (a continued pass counts from where this sync took it). */
  counts(): { rowsRead: number; inserted: number; updated: number; unfit: number } {
    const { pass, before, earlier } = this;
    return {
      rowsRead: earlier.rowsRead + pass.rows - before.rows,
      inserted: earlier.inserted + pass.inserted - before.inserted,
      updated: earlier.updated + pass.updated - before.updated,
      unfit: earlier.unfit + pass.unfit - before.unfit,
    };
  }

  start(mode: PassState['mode']): PassState {
    Object.assign(this.earlier, this.counts());
    this.pass = newPass(mode);
    this.before = { ...this.pass };
    this.continued = false;
    this.wasComplete ||= mode === COMPLETE_PASS;
    return this.pass;
  }
}

type PassOptions = TableSyncOptions & { syncId: number; onServiceTime(at: string): void };

/**
 * The sync's passes read, and ended. A plain sync whose incremental pass, or a complete pass an earlier
 * sync began, leaves the mirror holding more rows than the service listed (rows were deleted) reads
 * every row after it, saying why. One that
 * leaves the mirror short of the service's count reads on: after a pass an earlier sync began (killed
 * midway), the rows created since that pass began are above its saved cursor, so an incremental pass
 * from the newest row follows it; a pass this sync began reads on below its watermark itself
 * (readPages), to the end of the list at the most. Rows still missing then are counted in `missing`
 * (the service lists rows its pages do not return), after the table's count is listed again.
 */
async function readPasses(
  table: Table,
  prepared: PreparedTable & { fields: Field[] },
  passes: SyncPasses,
  options: PassOptions,
): Promise<{ fields: Field[]; current: TableState; deleted: number; missing: number }> {
  let { fields, plan, current } = prepared;
  let deleted = 0;
  for (;;) {
    const { pass, continued } = passes;
    ({ fields, plan, current } = await readAll(table, { fields, plan, current }, pass, { ...options, continued }));
    const end = {
      pass,
      syncId: options.syncId,
      serviceRowCount: table.rowCount,
      pendingLeftToVerification: options.pendingLeftToVerification,
    };
    deleted += await options.mirror.use((db) => finishPass(db, current, end));
    if (!options.listedNow) return { fields, current, deleted, missing: 0 };
    const extra = current.rowCount! - table.rowCount;
    const { mirrorTable } = current;
    // a complete pass an earlier sync began read its first pages then: rows deleted since are still held
    if ((pass.mode === 'incremental' || continued) && options.deletionsByCount && extra > 0) {
      const since = pass.mode === 'incremental' ? '' : ' since the pass an interrupted sync began read them';
      options.say(
        `${mirrorTable}: the mirror holds ${extra.toLocaleString('en-US')} more ${extra === 1 ? 'row' : 'rows'} than the service lists: rows were deleted${since}; reading every row to find them`,
      );
      current.pass = passes.start(COMPLETE_PASS);
    } else if (extra < 0 && continued) {
      options.say(
        `${mirrorTable}: the mirror lacks ${rowsText(-extra)} the service lists after the pass an interrupted sync began; reading the rows created since it began`,
      );
      current.pass = passes.start('incremental');
    } else if (extra < 0) {
      return { fields, current, deleted, missing: await stillMissing(table, current, options) };
    } else return { fields, current, deleted, missing: 0 };
  }
}

const rowsText = (count: number): string => `${count.toLocaleString('en-US')} ${count === 1 ? 'row' : 'rows'}`;

/**
 * The rows the service lists that the mirror lacks after a pass this sync began read down to the end
 * of the list: the count listed before the pass and the count listed now, whichever is lower (rows
 * deleted meanwhile are not missing, and rows added since the pass began are the next sync's).
 */
async function stillMissing(table: Table, state: TableState, options: PassOptions): Promise<number> {
  const listed = (await options.client.tables()).tables.find((candidate) => candidate.id === table.id)?.rowCount ?? 0;
  return Math.max(0, Math.min(table.rowCount, listed) - state.rowCount!);
}

/**
 * The pass's pages read and written; a row that holds a field the schema read before does not has the
 * schema read again and applied, and the pass goes on. Returns the schema and state it ended with.
 */
async function readAll(
  table: Table,
  prepared: PreparedTable & { fields: Field[] },
  pass: PassState,
  options: PassOptions & { continued: boolean },
): Promise<{ fields: Field[]; plan: PreparedTable['plan']; current: TableState }> {
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
        // a pass an earlier sync began stops at its watermark: what it lacks is above its cursor
        ...(options.listedNow && !options.continued ? { serviceRowCount: table.rowCount } : {}),
      });
      return { fields, plan, current };
    } catch (error) {
      if (!(error instanceof UnknownField)) throw error;
      fields = (await options.client.schema(table.id)).fields;
      const known = { state: current, fields };
      ({ plan, current } = await options.mirror.use((db: Database) => prepareTable(table, known.state, known.fields, { ...options, db })));
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
  const now = options.client.serviceNow() ?? Date.now();
  const stale = !options.full && state.lastSyncAt !== null && staleFor(state, options.maxStaleMs, now);
  if (stale) options.say(`${state.mirrorTable}: ${stale}: reading every row (--max-stale)`);
  state.pass = newPass(options.full || state.lastSyncAt === null || stale ? COMPLETE_PASS : 'incremental');
  return state.pass;
}

/** Why a table is older than --max-stale (its last verification) at `now` (the service's clock, as verified_at is), or false. */
function staleFor(state: TableState, maxStaleMs: number | undefined, now: number): string | false {
  if (maxStaleMs === undefined) return false;
  if (state.verifiedAt === null) return 'never verified by a pass over every row';
  const age = now - Date.parse(state.verifiedAt);
  return age > maxStaleMs ? `last verified ${formatAge(age)} ago (${state.verifiedAt})` : false;
}

// `--prune-history`, and what it leaves the history able to answer for. A pruned version was alive from
// its `_updatedAt` to its `_replacedAt`, and in the syncs before its `_replacedBy`: the table at a
// moment before the latest such end, or after a sync before it, is no longer known. _tds_pruned keeps,
// per table, the earliest moment and sync the history still answers for exactly; `tds diff`, MCP's
// diff_table and the macros T_at_sync and T_at refuse to answer for one before them.

const PRUNED_TABLE = `CREATE TABLE IF NOT EXISTS _tds_pruned (
    table_id VARCHAR PRIMARY KEY,
    known_from TIMESTAMPTZ NOT NULL,
    known_from_sync BIGINT NOT NULL
  )`;

/**
 * Drops the versions of the table's history replaced more than `olderThanMs` before `now` (the
 * service's clock, as `_replacedAt` is), but none that `--changes` has yet to deliver or a lake of the
 * table has yet to get (its partitions are written from the history); notes the
 * horizon and makes the macros again (they refuse a moment before it). Returns how many were dropped.
 */
export async function pruneHistory(connection: DuckDBConnection, state: TableState, olderThanMs: number, now: string): Promise<number> {
  const cutoff = new Date(Date.parse(now) - olderThanMs).toISOString();
  const history = quoteIdent(state.historyTable!);
  const undelivered = (await hasTable(connection, '_tds_changes'))
    ? ` AND ${quoteIdent(REPLACED_BY_KEY)} <= coalesce((SELECT delivered_sync FROM _tds_changes WHERE table_id = ${quoteLiteral(state.tableId)}), ${quoteIdent(REPLACED_BY_KEY)})`
    : '';
  // a lake that holds the table writes a sync's partition from the history (its tombstones and what each
  // version replaced) at the next --lake sync: what a sync it lacks replaced stays until then
  const unwritten = (await hasTable(connection, '_tds_lake'))
    ? ` AND ${quoteIdent(REPLACED_BY_KEY)} <= coalesce((SELECT min(written) FROM (SELECT max(sync_id) AS written FROM _tds_lake WHERE table_id = ${quoteLiteral(state.tableId)} GROUP BY lake_dir)), ${quoteIdent(REPLACED_BY_KEY)})`
    : '';
  const which = `${quoteIdent(REPLACED_AT_KEY)} < ${quoteLiteral(cutoff)}::TIMESTAMPTZ${undelivered}${unwritten}`;
  await connection.run('BEGIN TRANSACTION');
  try {
    const reader = await connection.runAndReadAll(
      `SELECT count(*)::BIGINT AS n, max(${quoteIdent(REPLACED_AT_KEY)}) AS known_from, max(${quoteIdent(REPLACED_BY_KEY)}) AS known_from_sync FROM ${history} WHERE ${which}`,
    );
    const found = reader.getRowObjectsJS()[0]!;
    const pruned = Number(found.n);
    if (pruned > 0) {
      await connection.run(`DELETE FROM ${history} WHERE ${which}`);
      await connection.run(PRUNED_TABLE);
      await connection.run(
        'INSERT INTO _tds_pruned VALUES ($1, $2::TIMESTAMPTZ, $3) ON CONFLICT (table_id) DO UPDATE SET ' +
          'known_from = greatest(known_from, excluded.known_from), known_from_sync = greatest(known_from_sync, excluded.known_from_sync)',
        [state.tableId, new Date(found.known_from as Date).toISOString(), Number(found.known_from_sync)],
      );
      const names = { historyTable: state.historyTable!, atSyncMacro: state.atSyncMacro!, atMacro: state.atMacro! };
      await createMacros(connection, state.mirrorTable, names, await versionColumns(connection, state.mirrorTable));
    }
    await connection.run('COMMIT');
    return pruned;
  } catch (error) {
    await connection.run('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
