import { access, rm } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Context } from '../core/context.js';
import { TdsError, UsageError } from '../core/errors.js';
import { returnFreedMemoryAtOnce } from '../duckdb/allocator.js';
import type { Database } from '../duckdb/engine.js';
import type { ApiClient } from '../http/client.js';
import { pickTable } from '../http/resolve-table.js';
import type { HeaderMode } from '../records/shape-options.js';
import type { Field, Table } from '../service/index.js';
import { openMirror } from './mirror-db.js';
import { formatSyncSummary, syncSummary } from './sync-summary.js';
import { startSyncProgress, type SyncProgress } from './sync-progress.js';
import { ChangesStream } from './sync-changes.js';
import { syncTable, type TableSyncResult } from './sync-table.js';
import { loadStates, type TableState } from './table-state.js';
import { takenNames } from './taken-names.js';

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

/**
 * `tds sync`: the tables named (or every table already in the mirror) synced one after another with
 * one client, so they share the organization's row-read limit; a summary per table; with --follow,
 * again every --every seconds until Ctrl-C.
 */
export async function runSync(ctx: Context, client: ApiClient, request: SyncRequest): Promise<void> {
  returnFreedMemoryAtOnce();
  const fresh = await access(request.db).then(
    () => false,
    () => true,
  );
  const db = await openMirror(request.db, {
    readOnly: false,
    memoryLimit: MEMORY_LIMIT,
    threads: THREADS,
    note: (line) => ctx.io.stderr.write(`tds: ${line}\n`),
  });
  let closed = false;
  try {
    const follow = new FollowMemory();
    const changes = request.changes ? await ChangesStream.open(ctx, db) : undefined;
    for (let round = 0; ; round += 1) {
      const results = await syncRound({ ctx, client, db, request, changes }, follow, round === 0);
      if (round === 0 || results.some(changedAnything)) report(ctx, request, round === 0 ? results : results.filter(changedAnything));
      if (request.followEveryMs === undefined) return;
      if (!(await idle(ctx, request.followEveryMs))) return;
    }
  } catch (error) {
    // a run that made the file and mirrored nothing (an unknown table, say) leaves no file behind
    const empty =
      fresh &&
      (await loadStates(db.connection).then(
        (states) => states.length === 0,
        () => false,
      ));
    if (empty) {
      closed = true;
      db.close();
      for (const path of [request.db, `${request.db}.wal`]) await rm(path, { force: true });
    }
    throw error;
  } finally {
    if (!closed) db.close();
  }
}

/**
 * How often --follow reads a table's schema even when its rows show no new field (a relabel or removal
 * shows in no row), and the list of tables (their row counts, which an incremental pass must reach).
 */
const SCHEMA_REFRESH_MS = 5 * 60_000;

/** What --follow keeps between rounds, so an idle round costs one row request per table and nothing more. */
class FollowMemory {
  tables: Table[] = [];
  private listedAt = -Infinity;
  private readonly schemas = new Map<string, { fields: Field[]; at: number }>();

  /** Whether the tables are to be listed again before this round (their row counts are old). */
  get listingDue(): boolean {
    return Date.now() - this.listedAt >= SCHEMA_REFRESH_MS;
  }

  listed(tables: readonly Table[]): void {
    this.listedAt = Date.now();
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

const changedAnything = (result: TableSyncResult): boolean => result.inserted + result.updated + result.deleted > 0 || !result.complete;

/** What every round of one `tds sync` shares. */
interface SyncSession {
  ctx: Context;
  client: ApiClient;
  db: Database;
  request: SyncRequest;
  /** --changes: every table's changes delivered before and after its sync */
  changes: ChangesStream | undefined;
}

/** One sync of every table; the first round chooses the tables and reads their schemas, later ones (--follow) reuse them. */
async function syncRound(session: SyncSession, memory: FollowMemory, first: boolean): Promise<TableSyncResult[]> {
  const { ctx, client, db, request, changes } = session;
  const states = await loadStates(db.connection);
  const listedNow = first || memory.listingDue;
  if (first) memory.tables = await chooseTables(ctx, client, request, states);
  if (listedNow) memory.listed(first ? memory.tables : (await client.tables()).tables);
  const taken = await namesInUse(db, states);
  const progress = first
    ? (request.progress?.(memory.tables) ?? (await startSyncProgress(ctx, memory.tables, client.timings.windows.rows)))
    : undefined;
  const results: TableSyncResult[] = [];
  try {
    for (const table of memory.tables) {
      const state = states.find((candidate) => candidate.tableId === table.id);
      const knownFields = first ? undefined : memory.fieldsOf(table.id);
      progress?.table(table);
      // what an earlier run committed and did not deliver comes first
      await changes?.deliver(table.id);
      const synced = syncTable(table, state, {
        ctx,
        client,
        db,
        ...(request.header ? { header: request.header } : {}),
        full: request.full && first,
        taken,
        say: (line) => (progress ? progress.note(line) : void ctx.io.stderr.write(`${line}\n`)),
        ...(progress ? { progress } : {}),
        ...(knownFields ? { knownFields } : {}),
        onFields: (fields) => memory.remember(table.id, fields),
        listedNow,
        ...(request.pruneHistoryMs !== undefined ? { pruneHistoryMs: request.pruneHistoryMs } : {}),
      });
      let result: TableSyncResult;
      try {
        result = await synced;
      } catch (error) {
        // what an interrupted sync wrote is said too (else the next --changes says it)
        await changes?.deliver(table.id).catch(() => undefined);
        throw error;
      }
      results.push(result);
      await changes?.deliver(table.id);
      await request.afterTable?.(db, result);
    }
  } finally {
    progress?.stop();
  }
  return results;
}

/** The tables to sync: named, by workspace, all, or (none named) those already in the mirror. */
async function chooseTables(ctx: Context, client: ApiClient, request: SyncRequest, states: readonly TableState[]): Promise<Table[]> {
  const { tables } = await client.tables();
  const chosen = new Map<string, Table>();
  for (const ref of request.tables) {
    const table = pickTable(tables, ref);
    chosen.set(table.id, table);
  }
  for (const ref of request.workspaces) {
    const inWorkspace = tables.filter((table) => table.workspaceId === ref || table.workspaceName === ref);
    if (inWorkspace.length === 0)
      throw new TdsError('NOT_FOUND', `no workspace with ID or name "${ref}" has tables in this organization`, {
        reason: 'unknown-workspace',
      });
    for (const table of inWorkspace) chosen.set(table.id, table);
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

function report(ctx: Context, request: SyncRequest, results: readonly TableSyncResult[]): void {
  const summary = syncSummary(request.db, results);
  if (request.json) ctx.io.stdout.write(`${JSON.stringify(summary)}\n`);
  else ctx.io.stderr.write(formatSyncSummary(summary));
}

/** Waits for the next round of --follow; false when Ctrl-C came meanwhile (a clean end). */
async function idle(ctx: Context, ms: number): Promise<boolean> {
  try {
    await sleep(ms, undefined, { signal: ctx.signal });
    return true;
  } catch {
    return false;
  }
}
