import { access, rm } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Context, TdsError, UsageError } from '../core/index.js';
import { finishedResultsCollector, returnFreedMemory, type Database } from '../duckdb/index.js';
import type { ApiClient } from '../http/index.js';
import { pickTable, pickWorkspace, type HeaderMode } from '../records/index.js';
import type { Field, Table } from '../service/index.js';
import { Verifier } from './follow-verify.js';
import { claimMirror, HeldMirror, oneAtATime, waitOn, type MirrorAccess } from './mirror-db.js';
import {
  ChangesStream,
  formatSyncSummary,
  interruptedSync,
  missingRowsError,
  followLineText,
  startSyncProgress,
  syncSummary,
  type SyncProgress,
} from './sync-report.js';
import { syncTable, type TableSyncOptions, type TableSyncResult } from './sync-table.js';
import { loadStates, type TableState } from './table-state.js';
import { startLiveLine } from '../output/index.js';
import { takenNames } from './table-name.js';

export interface SyncRequest {
  /** TABLE arguments: IDs or exact names */
  tables: string[];
  /** --workspace: every table of these workspaces (IDs or exact names) */
  workspaces: string[];
  all: boolean;
  db: string;
  full: boolean;
  /** --header: keys of new mirror tables (a table keeps the keys it was made with) */
  header?: HeaderMode;
  json: boolean;
  /** --follow: sync again every this many ms until Ctrl-C */
  followEveryMs?: number;
  /** Reports the run's progress instead of the line on a terminal (tds mcp: progress notifications). */
  progress?: (tables: readonly Table[]) => SyncProgress;
  /** --changes: the diff records of each table's sync on stdout (NDJSON) */
  changes?: boolean;
  /** --prune-history: versions replaced longer ago than this many ms are dropped */
  pruneHistoryMs?: number;
  /** --max-stale (undefined: off): one-shot, a full pass for a table verified longer ago; --follow, the bound verification keeps */
  maxStaleMs?: number;
  /** --max-share: the share of the row-read limit --follow's verification may use */
  maxShare?: number;
  /** Another sync holds the mirror: 'skip' says so and leaves it (tds stats reads it as it is); else an error. */
  whenBusy?: 'skip';
  /**
   * Run after each round with the tables it changed (every table after the first), the mirror closed
   * meanwhile so that the hook opens it as it needs (--follow --check).
   */
  afterRound?: (changed: readonly TableSyncResult[]) => Promise<void>;
  /** Run after each table's sync, with the mirror open for writing (--lake writes what the sync changed). */
  afterTable?: (db: Database, result: TableSyncResult) => Promise<void>;
}

/**
 * DuckDB's buffer pool while syncing: a group's statements need little (the rows of a few pages), and
 * DuckDB spills beside the mirror if a statement needs more.
 */
const MEMORY_LIMIT = '64MB';
/**
 * One thread: a sync's statements are small and run one after another while the next pages are read
 * and typed (the other core's work); more threads cost more CPU and memory than they save.
 */
const THREADS = 1;

/** An incremental sync of the tables a reader (stats, check) is about to read; a mirror a follower holds is read as it is. */
export function syncBeforeReading(ctx: Context, client: ApiClient, db: string, tables: string[]): Promise<void> {
  return runSync(ctx, client, { tables, workspaces: [], all: false, db, full: false, json: false, whenBusy: 'skip' });
}

/**
 * `tds sync`: the tables named (or every table already in the mirror) synced with one client, so they
 * share the organization's row-read limit (their reads at once, their writes one at a time: syncRound);
 * a summary per table; with --follow, again every --every seconds until Ctrl-C.
 */
export async function runSync(ctx: Context, client: ApiClient, request: SyncRequest): Promise<void> {
  returnFreedMemory(0);
  const lock = await claimMirror(ctx, request.db, request.whenBusy);
  if (!lock) return;
  const fresh = await access(request.db).then(
    () => false,
    () => true,
  );
  let mirror: HeldMirror | undefined;
  let empty = false;
  try {
    mirror = await HeldMirror.open(request.db, {
      checkpointEachCommit: request.followEveryMs !== undefined,
      // a follower holds the file only while it writes: never across a wait for the service or the next round
      releaseEachUse: request.followEveryMs !== undefined,
      memoryLimit: MEMORY_LIMIT,
      threads: THREADS,
      note: (line) => ctx.io.stderr.write(`tds: ${line}\n`),
      ...waitOn(ctx),
    });
    const session: SyncSession = { ctx, client, request, mirror };
    const follow = new FollowMemory();
    let first: TableSyncResult[];
    const started = performance.now();
    const rowsBefore = client.stats.rowRequests;
    try {
      first = await syncRound(session, follow);
    } catch (error) {
      // a run that made the file and mirrored nothing (an unknown table, say) leaves no file behind
      empty = fresh && (await mirror.use(async (db) => (await loadStates(db.connection)).length === 0).catch(() => false));
      throw error;
    }
    const firstRows = { since: started, rowRequests: client.stats.rowRequests - rowsBefore };
    report(session, first);
    // the hook opens the mirror itself
    await mirror.letGo();
    await request.afterRound?.(first);
    if (request.followEveryMs !== undefined) await followRounds(session, follow, firstRows);
    else {
      // never exit 0 while a table is known to lack rows (the summary above says which)
      const incomplete = missingRowsError(first);
      if (incomplete) throw incomplete;
    }
  } finally {
    await mirror?.close();
    if (empty) for (const file of [request.db, `${request.db}.wal`]) await rm(file, { force: true });
    await lock.release();
  }
}

/** --follow: a round every --every, and verification pages between rounds (the first round's reads paid from their share too). */
async function followRounds(session: SyncSession, follow: FollowMemory, first: { since: number; rowRequests: number }): Promise<void> {
  const { ctx, request, mirror } = session;
  const verifier = new Verifier(
    {
      ctx,
      client: session.client,
      mirror,
      fieldsOf: (tableId) => follow.fieldsOf(tableId),
      say: (line) => ctx.io.stderr.write(`tds: ${line}\n`),
      taken: follow.taken,
      ...(request.changes
        ? { changed: async (db: Database, tableId: string) => (await ChangesStream.open(ctx, db)).deliver(tableId) }
        : {}),
    },
    { maxStaleMs: request.maxStaleMs, maxShare: request.maxShare ?? 0 },
  );
  verifier.spent(first.since, first.rowRequests, true);
  await verifier.plan(follow.tables);
  const freeResults = finishedResultsCollector();
  for (;;) {
    const roundAt = performance.now() + request.followEveryMs!;
    const pagesUntil = verifier.pagesUntil(roundAt);
    // never held across a wait: DuckDB's own CLI, which does not say it waits (someoneWaits), gets in then
    // on a terminal, the follower's line while it waits (the tables, the next round, the stale ones)
    const line = (): string =>
      followLineText({
        tables: follow.tables.length,
        nextRoundMs: roundAt - performance.now(),
        maxStaleMs: request.maxStaleMs,
        stale: verifier.staleNow(),
      });
    while (verifier.dueAt <= pagesUntil) {
      await mirror.letGo();
      freeResults();
      if (!(await idle(ctx, verifier.dueAt - performance.now(), line))) return;
      await verifier.page(follow.tables);
    }
    await mirror.letGo();
    freeResults();
    if (!(await idle(ctx, roundAt - performance.now(), line))) return;
    const since = performance.now();
    const rowsBefore = session.client.stats.rowRequests;
    const results = await followRound(session, follow, verifier.atShare);
    verifier.spent(since, session.client.stats.rowRequests - rowsBefore);
    await verifier.plan(follow.tables, results.length > 0);
    const changed = results.filter(changedAnything);
    if (changed.length > 0) {
      report(session, changed);
      await mirror.letGo();
      await request.afterRound?.(changed);
    }
  }
}

/**
 * A round of --follow: the listing (one request for every table); a table whose row count did not
 * move, with no action cell still pending and no pass to continue, costs no row request. Nor does one
 * whose count only fell when `fallsToVerification` (verification reads at the full share, so a round's
 * row request would put every change off): the verification finds the deletions within its pass, as
 * it finds a +1 -1, and a new row hidden behind them too.
 */
async function followRound(session: SyncSession, follow: FollowMemory, fallsToVerification: boolean): Promise<TableSyncResult[]> {
  follow.listed((await session.client.tables()).tables);
  const moved = follow.tables.filter((table) => follow.mustRead(table, fallsToVerification));
  if (moved.length === 0) return [];
  return syncRound(session, follow, moved);
}

const changedAnything = (result: TableSyncResult): boolean => result.inserted + result.updated + result.deleted > 0 || !result.complete;

/** What every round of one `tds sync` shares. */
interface SyncSession {
  ctx: Context;
  client: ApiClient;
  request: SyncRequest;
  /** The mirror, held only while a step writes it. */
  mirror: HeldMirror;
}

/**
 * Row requests a table's pass keeps in flight at the most: a page, and the pages a full pass reads
 * ahead (read-pages.ts), and its schema's read.
 */
const REQUESTS_A_TABLE = 4;

/**
 * How many tables a round syncs at once: as many as the row-read limit's burst lets start together.
 * Each table's pages are a chain (a page's cursor comes with the page before), but the chains of two
 * tables are not: a far service costs a round trip a page of each chain, and chains run at once pay
 * them together. The one limiter of the client keeps the limit, however many run; writes to the mirror
 * stay one at a time (oneAtATime).
 */
export function tablesAtOnce(client: Pick<ApiClient, 'timings'>): number {
  return Math.max(1, Math.floor(client.timings.windows.rows.requests / REQUESTS_A_TABLE));
}

/**
 * One sync of every table (or of `only`); the first round chooses the tables and reads their schemas,
 * later ones (--follow) reuse them. The tables' reads run at once (tablesAtOnce; a follower's, one
 * after another), their writes one at a time; the results come in the tables' order.
 */
async function syncRound(session: SyncSession, memory: FollowMemory, only?: Table[]): Promise<TableSyncResult[]> {
  const { ctx, client, request } = session;
  const mirror = oneAtATime(session.mirror);
  const first = only === undefined;
  const states = await mirror.use((db) => loadStates(db.connection));
  if (first) memory.listed((memory.tables = await chooseTables(ctx, client, request, states)));
  const taken = (memory.taken = await mirror.use((db) => namesInUse(db, states)));
  const progress = first
    ? (request.progress?.(memory.tables) ??
      (await startSyncProgress(ctx, memory.tables, client.timings.windows.rows, () => client.rowReadWaitMs())))
    : undefined;
  const changes = request.changes ? await mirror.use((db) => ChangesStream.open(ctx, db)) : undefined;
  const tables = only ?? memory.tables;
  const round: Round = { session, memory, mirror, first, states, taken, progress, changes, results: [] };
  /** The schema of the table begun last applied: the next one's is applied after it (its mirror table's name). */
  let prepared = Promise.resolve();
  try {
    // a follower's tables one at a time: it holds the file only while it writes, so no request of its
    // waits for the service while another table's group is written (a DuckDB client gets in meanwhile)
    const atOnce = session.mirror.releasesEachUse ? 1 : tablesAtOnce(client);
    await eachAtOnce(tables, atOnce, async (table, index) => {
      const preparedBefore = prepared;
      let onPrepared = (): void => undefined;
      prepared = new Promise((resolve) => (onPrepared = resolve));
      try {
        await syncOne(round, table, index, { preparedBefore, onPrepared });
      } finally {
        onPrepared();
      }
    });
  } finally {
    progress?.stop();
  }
  memory.synced(
    (await mirror.use((db) => loadStates(db.connection))).filter((state) => tables.some((table) => table.id === state.tableId)),
  );
  return round.results;
}

/** What the tables of one round share. */
interface Round {
  session: SyncSession;
  memory: FollowMemory;
  /** The mirror, its uses one at a time (the tables' reads run at once). */
  mirror: MirrorAccess;
  /** The first round of the run (it chose the tables; --full applies to it). */
  first: boolean;
  states: readonly TableState[];
  taken: Set<string>;
  progress: SyncProgress | undefined;
  /** The table the progress shows: the one begun last (the line follows one table at a time). */
  shown?: Table;
  changes: ChangesStream | undefined;
  /** Each table's result, at its place in the round's tables. */
  results: TableSyncResult[];
}

/** One table of a round synced (its changes delivered, --lake's hook run), its result put at `index`. */
async function syncOne(
  round: Round,
  table: Table,
  index: number,
  order: Pick<TableSyncOptions, 'preparedBefore' | 'onPrepared'>,
): Promise<void> {
  const { session, memory, mirror, first, progress, changes } = round;
  const { ctx, client, request } = session;
  const oneShot = request.followEveryMs === undefined;
  const deliver = (tableId: string): Promise<void> => mirror.use(() => changes!.deliver(tableId));
  const state = round.states.find((candidate) => candidate.tableId === table.id);
  const knownFields = first ? undefined : memory.fieldsOf(table.id);
  progress?.table(table);
  round.shown = table;
  // what an earlier run committed and did not deliver comes first
  if (changes) await deliver(table.id);
  const synced = syncTable(table, state, {
    ctx,
    client,
    mirror,
    ...(request.header ? { header: request.header } : {}),
    full: request.full && first,
    taken: round.taken,
    say: (line) => (progress ? progress.note(line) : void ctx.io.stderr.write(`${line}\n`)),
    ...(progress
      ? {
          progress: {
            page: (rows) => void (round.shown === table && progress.page(rows)),
            continues: (rows) => void (round.shown === table && progress.continues?.(rows)),
          },
        }
      : {}),
    ...(knownFields ? { knownFields } : {}),
    onFields: (fields) => memory.remember(table.id, fields),
    listedNow: true,
    deletionsByCount: oneShot,
    pendingLeftToVerification: !oneShot && request.maxStaleMs !== undefined && (request.maxShare ?? 0) > 0,
    ...boundOptions(request, client.timings.retryScale),
    ...(request.pruneHistoryMs !== undefined ? { pruneHistoryMs: request.pruneHistoryMs } : {}),
    ...order,
  });
  let result: TableSyncResult;
  try {
    result = await synced;
  } catch (error) {
    // what an interrupted sync wrote is said too (the next sync's changes are its own)
    if (changes) await deliver(table.id).catch(() => undefined);
    if (!ctx.signal.aborted || (error instanceof TdsError && error.code !== 'INTERRUPTED')) throw error;
    const saved = (await mirror.use((db) => loadStates(db.connection)).catch(() => [])).find((candidate) => candidate.tableId === table.id);
    const tablesDone = round.results.filter(Boolean).length;
    throw interruptedSync({ db: request.db, table: table.name, savedRows: saved?.pass?.rows ?? 0, tablesDone });
  }
  round.results[index] = result;
  if (changes) await deliver(table.id);
  const { afterTable } = request;
  if (afterTable) await mirror.use((db) => afterTable(db, result));
}

/**
 * `work` for each item, at most `atOnce` at a time, begun in the items' order. After a failure no item
 * is begun; the ones under way end, then the first failure is thrown.
 */
export async function eachAtOnce<T>(items: readonly T[], atOnce: number, work: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const lane = async (): Promise<void> => {
    while (failure === undefined && next < items.length) {
      const index = next++;
      try {
        await work(items[index]!, index);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(atOnce, items.length) }, lane));
  if (failure) throw failure.error;
}

/**
 * --max-stale as a table's sync takes it: one-shot, a full pass for a table verified longer ago; --follow, the
 * bound it records (on the service's clock: at the rate scale).
 */
function boundOptions(request: SyncRequest, retryScale: number): Pick<TableSyncOptions, 'maxStaleMs' | 'followBoundMs'> {
  const { maxStaleMs } = request;
  if (request.followEveryMs !== undefined) return { followBoundMs: maxStaleMs === undefined ? null : maxStaleMs / retryScale };
  return maxStaleMs === undefined ? {} : { maxStaleMs };
}

/** The tables to sync: named, by workspace, all, or (none named) those already in the mirror. */
async function chooseTables(ctx: Context, client: ApiClient, request: SyncRequest, states: readonly TableState[]): Promise<Table[]> {
  const { tables } = await client.tables();
  const chosen = new Map<string, Table>();
  for (const ref of request.tables) {
    const table = pickTable(tables, ref);
    chosen.set(table.id, table);
  }
  const workspaces = [
    ...new Map(tables.map((table) => [table.workspaceId, { id: table.workspaceId, name: table.workspaceName }])).values(),
  ];
  for (const ref of request.workspaces) {
    // a workspace without tables is not among them: "no workspace … in this organization" is as true for a sync
    const workspace = pickWorkspace(workspaces, ref);
    for (const table of tables) if (table.workspaceId === workspace.id) chosen.set(table.id, table);
  }
  if (request.all) for (const table of tables) chosen.set(table.id, table);
  if (request.tables.length === 0 && request.workspaces.length === 0 && !request.all) {
    if (states.length === 0) {
      throw new UsageError(`the mirror ${request.db} has no tables yet: name the tables to sync`, {
        hint: 'e.g. `tds sync Leads`, `tds sync --workspace Sales` or `tds sync --all`',
      });
    }
    for (const state of states) {
      const table = tables.find((candidate) => candidate.id === state.tableId);
      if (table) chosen.set(table.id, table);
      else
        ctx.io.stderr.write(
          `tds: warning: the table ${state.name} (${state.tableId}) no longer exists in the organization; its mirror table ${state.mirrorTable} is kept as it is\n`,
        );
    }
  }
  return [...chosen.values()];
}

/** Names in use: a new mirror table (or its history table and macros) takes none of them. */
async function namesInUse(db: Database, states: readonly TableState[]): Promise<Set<string>> {
  const taken = await takenNames(db.connection);
  for (const state of states) {
    for (const name of [state.mirrorTable, state.historyTable, state.atSyncMacro, state.atMacro]) if (name) taken.add(name.toLowerCase());
  }
  return taken;
}

function report({ ctx, client, request }: Pick<SyncSession, 'ctx' | 'client' | 'request'>, results: readonly TableSyncResult[]): void {
  const summary = syncSummary(request.db, results, client.serviceNow() ?? Date.now());
  if (request.json) ctx.io.stdout.write(`${JSON.stringify(summary)}\n`);
  else ctx.io.stderr.write(formatSyncSummary(summary));
}

/**
 * Waits for the next round or page of --follow, showing `line` on a terminal meanwhile (gone while a
 * round or page writes, which may say things on stderr); false when Ctrl-C came meanwhile (a clean end).
 * SIGTERM (a service manager stopping it) ends it as interrupted: exit 143, which says a signal stopped it.
 */
async function idle(ctx: Context, ms: number, line: () => string): Promise<boolean> {
  const shown = ctx.io.stderrIsTTY ? await startLiveLine(ctx.io, line, 1000) : undefined;
  try {
    await sleep(Math.max(0, ms), undefined, { signal: ctx.signal });
    return true;
  } catch {
    const reason: unknown = ctx.signal.reason;
    if (reason instanceof TdsError && reason.message === 'terminated') throw reason;
    return false;
  } finally {
    shown?.stop();
  }
}

/**
 * How often --follow reads a table's schema even when its rows show no new field (a relabel or removal
 * shows in no row), and the list of tables (their row counts, which an incremental pass must reach).
 */
const SCHEMA_REFRESH_MS = 5 * 60_000;

/** What --follow keeps between rounds, so that an idle round costs one listing and no row request. */
class FollowMemory {
  tables: Table[] = [];
  private readonly schemas = new Map<string, { fields: Field[]; at: number }>();

  /** Names in use in the mirror (a new mirror table takes none of them). */
  taken = new Set<string>();
  /** What each table's last sync left: the service's row count then, and whether action cells were pending. */
  private readonly after = new Map<string, { serviceRowCount: number | null; quiet: boolean }>();

  /**
   * Whether a round must read the table: its count moved, an action cell is pending, or a pass is
   * unfinished. A count that only fell is left to verification when `fallsToVerification`: it becomes
   * the count the next listing is compared with, so a row added later is read by the round after it.
   */
  mustRead(table: Table, fallsToVerification: boolean): boolean {
    const after = this.after.get(table.id);
    if (after === undefined || !after.quiet) return true;
    if (after.serviceRowCount === table.rowCount) return false;
    if (!fallsToVerification || after.serviceRowCount === null || table.rowCount > after.serviceRowCount) return true;
    after.serviceRowCount = table.rowCount;
    return false;
  }

  /** The states of the tables a round read. */
  synced(states: readonly TableState[]): void {
    for (const state of states) {
      this.after.set(state.tableId, {
        serviceRowCount: state.serviceRowCount,
        quiet: state.pendingSince === null && state.pass === null,
      });
    }
  }

  listed(tables: readonly Table[]): void {
    const latest = new Map(tables.map((table) => [table.id, table]));
    // a table gone from the list stays (its sync then says what became of it)
    this.tables = this.tables.map((table) => latest.get(table.id) ?? table);
  }

  fieldsOf(tableId: string): Field[] | undefined {
    const known = this.schemas.get(tableId);
    return known && Date.now() - known.at < SCHEMA_REFRESH_MS ? known.fields : undefined;
  }

  remember(tableId: string, fields: Field[]): void {
    if (this.schemas.get(tableId)?.fields !== fields) this.schemas.set(tableId, { fields, at: Date.now() });
  }
}
