import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import type { Context } from '../core/context.js';
import { UsageError, TdsError } from '../core/errors.js';
import { loadSettings, type Settings } from '../config/settings.js';
import { MAX_DURATION_DAYS, parseDuration } from '../mirror/diff/open-diff.js';
import { runSync } from '../mirror/sync-run.js';
import type { HeaderMode } from '../records/shape-options.js';
import { observedText, tallyText } from '../check/check-result.js';
import { readChecksFile } from '../check/checks-file.js';
import { FollowNotifier, notifyTarget } from '../check/notify.js';
import { runChecks } from '../check/run-checks.js';
import type { ApiClient } from '../http/client.js';
import { withClient } from './client.js';
import { writeLake, folderIdentity, folderProblems, lakeFolder } from '../lake/lake.js';
import { quoteLiteral } from '../duckdb/sql-text.js';
import { type Database, openDatabase } from '../duckdb/engine.js';
import type { TableSyncResult } from '../mirror/sync-table.js';
import { compactFolder } from '../lake/compact.js';
import { checkLake, type TableCheck } from '../lake/lake-check.js';
import { openMirror, requireMirror, waitOn } from '../mirror/mirror-db.js';

// The actions of `tds sync` (with --lake and --check) and of `tds lake compact|check`.

export interface SyncOptions {
  workspace: string[];
  all?: boolean;
  db?: string;
  full?: boolean;
  follow?: boolean;
  every?: number;
  header?: HeaderMode;
  json?: boolean;
  changes?: boolean;
  pruneHistory?: string;
  maxStale?: string;
  maxShare?: number;
  lake?: string;
  check?: string;
  notify?: string;
}

const DEFAULT_EVERY_SECONDS = 10;
/** --max-stale when neither the flag nor the profile says: a day for a one-shot sync, an hour for --follow. */
const DEFAULT_MAX_STALE = { once: '24h', follow: '1h' };
const DEFAULT_MAX_SHARE = 0.5;

export async function syncAction(ctx: Context, tables: string[], options: SyncOptions, command: Command): Promise<void> {
  if (options.every !== undefined && !options.follow) throw new UsageError('--every goes with --follow');
  if (options.all && (tables.length > 0 || options.workspace.length > 0)) {
    throw new UsageError('--all already takes every table; leave out the tables and --workspace');
  }
  if (options.changes && options.json) {
    throw new UsageError('--changes and --json both write to stdout', {
      hint: 'leave out --json: with --changes the summaries stay on stderr',
    });
  }
  const pruneHistoryMs = options.pruneHistory === undefined ? undefined : parseDuration(options.pruneHistory, '--prune-history');
  if (options.pruneHistory !== undefined && pruneHistoryMs === undefined) {
    throw new UsageError(`--prune-history ${JSON.stringify(options.pruneHistory)} is not a duration`, {
      hint: `e.g. 30d, 12h, 90m (up to ${MAX_DURATION_DAYS}d)`,
    });
  }
  if (options.notify !== undefined && options.check === undefined) throw new UsageError('--notify goes with --check FILE');
  if (options.check !== undefined && options.changes) {
    throw new UsageError('--check and --changes are not taken together yet', {
      hint: 'run tds check beside the sync, or leave out --changes',
    });
  }
  if (options.maxShare !== undefined && !options.follow) throw new UsageError('--max-share goes with --follow');
  const settings = await loadSettings(ctx, command);
  const maxStaleText = options.maxStale ?? settings.maxStale ?? (options.follow ? DEFAULT_MAX_STALE.follow : DEFAULT_MAX_STALE.once);
  const maxStaleMs = maxStaleText.trim().toLowerCase() === 'off' ? undefined : parseDuration(maxStaleText, '--max-stale');
  if (maxStaleMs === undefined && maxStaleText.trim().toLowerCase() !== 'off') {
    throw new UsageError(`--max-stale ${JSON.stringify(maxStaleText)} is not a duration`, { hint: 'e.g. 30m, 24h, 7d, or off' });
  }
  const checks = options.check === undefined ? undefined : await checksAfterRounds(ctx, options, settings);
  try {
    await syncTables(ctx, settings, tables, { options, maxStaleMs, pruneHistoryMs, checks: checks?.afterRound });
  } finally {
    await checks?.notifier?.close();
  }
}

async function syncTables(
  ctx: Context,
  settings: Settings,
  tables: string[],
  run: {
    options: SyncOptions;
    maxStaleMs: number | undefined;
    pruneHistoryMs: number | undefined;
    checks: ((client: ApiClient, changed: readonly TableSyncResult[]) => Promise<void>) | undefined;
  },
): Promise<void> {
  const { options, maxStaleMs, pruneHistoryMs, checks } = run;
  await withClient(ctx, settings, (client) =>
    runSync(ctx, client, {
      ...(checks ? { afterRound: (changed: readonly TableSyncResult[]) => checks(client, changed) } : {}),
      tables,
      workspaces: options.workspace,
      all: Boolean(options.all),
      db: settings.db,
      full: Boolean(options.full),
      ...(options.header ? { header: options.header } : {}),
      json: Boolean(options.json),
      ...(options.follow ? { followEveryMs: (options.every ?? DEFAULT_EVERY_SECONDS) * 1000 } : {}),
      ...(options.changes ? { changes: true } : {}),
      ...(pruneHistoryMs !== undefined ? { pruneHistoryMs } : {}),
      ...(maxStaleMs !== undefined ? { maxStaleMs } : {}),
      maxShare: options.maxShare ?? DEFAULT_MAX_SHARE,
      ...(settings.lake !== undefined ? { afterTable: lakeWriter(ctx, settings.lake) } : {}),
    }),
  );
}

/** --lake DIR: after each table's sync, the partitions the lake lacks for it, each said in one line. */
function lakeWriter(ctx: Context, dir: string): (db: Database, result: TableSyncResult) => Promise<void> {
  const root = resolve(dir);
  return async (db, result) => {
    const written = await writeLake(db.connection, { dir: root, tableId: result.tableId });
    for (const partition of written) {
      ctx.io.stderr.write(
        `${partition.mirrorTable}: ${partition.rows} ${partition.rows === 1 ? 'version' : 'versions'} to the lake (sync_id=${partition.syncId})\n`,
      );
    }
  };
}

/**
 * --check FILE [--notify …]: the checks of the tables a round changed, run on the mirror once the round
 * is written; their notifications go in the background (a round never waits for a receiver).
 */
async function checksAfterRounds(
  ctx: Context,
  options: SyncOptions,
  settings: Settings,
): Promise<{ afterRound: (client: ApiClient, changed: readonly TableSyncResult[]) => Promise<void>; notifier?: FollowNotifier }> {
  const tables = await readChecksFile(options.check!);
  const notify = options.notify === undefined ? undefined : await notifyTarget(ctx, options.notify, settings);
  const notifier = notify ? new FollowNotifier(ctx, notify, settings.db) : undefined;
  const afterRound = async (client: ApiClient, changed: readonly TableSyncResult[]): Promise<void> => {
    const names = new Set(changed.flatMap((result) => [result.tableId, result.name, result.mirrorTable]));
    const due = tables.filter((table) => names.has(table.ref));
    if (due.length === 0) return;
    await notifier?.beforeChecks();
    const now = client.serviceNow() ?? Date.now();
    const outcome = await runChecks({
      db: settings.db,
      tables: due,
      now,
      record: true,
      notify: notifier !== undefined,
      ...waitOn(ctx),
      signal: ctx.signal,
    });
    const failing = outcome.results.filter((result) => result.status === 'fail' || result.status === 'error');
    ctx.io.stderr.write(`checks of ${due.map((table) => table.ref).join(', ')}: ${tallyText(outcome.results)}\n`);
    for (const result of failing) {
      const mark = result.status === 'fail' ? '✗ FAIL' : '? error';
      const detail = result.status === 'fail' ? `${observedText(result)}, threshold ${result.threshold}` : (result.message ?? '');
      ctx.io.stderr.write(`  ${mark} ${result.table}: ${result.check} (${detail})\n`);
    }
    notifier?.afterChecks(outcome);
  };
  return { afterRound, ...(notifier ? { notifier } : {}) };
}

export interface LakeCompactOptions {
  dropChanges?: boolean;
}

export interface LakeCheckOptions {
  db?: string;
  json?: boolean;
}

/** A compaction's DuckDB: bounded, spilling into a private folder of its own that is removed after. */
const COMPACT_MEMORY_LIMIT = '256MB';

export async function lakeCompactAction(ctx: Context, dir: string, tables: string[], options: LakeCompactOptions): Promise<void> {
  const root = resolve(dir);
  const folders = await tableFolders(root, tables);
  const spill = await mkdtemp(join(tmpdir(), 'tds-compact-'));
  const db = await openDatabase(':memory:', { readOnly: false, what: 'the lake', memoryLimit: COMPACT_MEMORY_LIMIT, privateFiles: true });
  try {
    await db.connection.run(`SET temp_directory = ${quoteLiteral(spill)}`);
    // every folder is read whole before any is changed: a broken one leaves the lake as it is
    const problems: string[] = [];
    for (const folder of folders) {
      for (const problem of await folderProblems(db.connection, join(root, folder))) {
        problems.push(`${join(root, folder, problem.path)} is ${problem.problem}`);
      }
    }
    if (problems.length > 0) {
      throw new UsageError(`${problems.join('; ')}: nothing compacted`, {
        hint: 'remove the partition folders named and run `tds sync --lake DIR` (it writes again every partition the lake lacks), then compact',
      });
    }
    let freed = 0;
    for (const folder of folders) {
      const result = await compactFolder(db.connection, join(root, folder), Boolean(options.dropChanges));
      freed += result.freed;
      const what = result.asOf === undefined ? 'nothing new to compact' : `${result.versions} versions into snapshot/as_of=${result.asOf}`;
      ctx.io.stderr.write(`${folder}: ${what}${options.dropChanges ? `; ${megabytes(result.freed)} of changes removed` : ''}\n`);
    }
    if (options.dropChanges) ctx.io.stderr.write(`freed ${megabytes(freed)} in all\n`);
  } finally {
    db.close();
    await rm(spill, { recursive: true, force: true });
  }
}

export async function lakeCheckAction(ctx: Context, dir: string, options: LakeCheckOptions, command: Command): Promise<void> {
  const settings = await loadSettings(ctx, command);
  const root = resolve(dir);
  const db = await openMirror(settings.db, { readOnly: true, ...waitOn(ctx) });
  try {
    await requireMirror(db);
    const checks = await checkLake(db.connection, root);
    if (options.json) ctx.io.stdout.write(`${JSON.stringify(checks)}\n`);
    for (const check of checks) {
      for (const problem of check.problems)
        ctx.io.stderr.write(`${check.mirrorTable}: ${join(check.folder, problem.path)} is ${problem.problem}\n`);
      ctx.io.stderr.write(checkLine(check));
    }
    const differing = checks.filter((check) => !check.matches);
    if (differing.length > 0) {
      const broken = differing.some((check) => check.problems.length > 0);
      const what = broken ? 'cannot be read whole, or differs from the mirror,' : 'differs from the mirror';
      throw new TdsError('CHECK_FAILED', `the lake ${dir} ${what} in ${differing.map((c) => c.mirrorTable).join(', ')}`, {
        hint: broken
          ? 'remove the partition folders named and run `tds sync --lake DIR`: it writes again every partition the lake lacks'
          : 'the next `tds sync --lake` writes the partitions a lake lacks; a lake copied from elsewhere may be older than the mirror',
      });
    }
  } finally {
    db.close();
  }
}

function checkLine(check: TableCheck): string {
  if (check.matches) return `${check.mirrorTable}: the lake matches the mirror (${check.mirror.rows} rows)\n`;
  if (check.lake === null) return `${check.mirrorTable}: the lake cannot be read whole; not compared\n`;
  return `${check.mirrorTable}: the lake differs: mirror ${check.mirror.rows} rows (checksum ${check.mirror.checksum}), lake ${check.lake.rows} rows (checksum ${check.lake.checksum})\n`;
}

/** The table folders of the lake to work on: those named (by mirror table or folder name), else every one tds wrote. */
async function tableFolders(root: string, tables: readonly string[]): Promise<string[]> {
  const entries = await readdir(root, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT')
      throw new UsageError(`${root} does not exist`, { hint: 'give the folder that `tds sync --lake DIR` writes' });
    throw error;
  });
  const ours: string[] = [];
  for (const entry of entries) if (entry.isDirectory() && (await folderIdentity(join(root, entry.name)))) ours.push(entry.name);
  if (tables.length === 0) return ours.sort();
  return tables.map((table) => {
    const folder = lakeFolder(table);
    if (!ours.includes(folder)) {
      throw new TdsError('NOT_FOUND', `the lake ${root} has no table ${JSON.stringify(table)}`, {
        hint: ours.length > 0 ? `its tables: ${ours.join(', ')}` : 'it has no table yet: run `tds sync --lake DIR` first',
      });
    }
    return folder;
  });
}

function megabytes(bytes: number): string {
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}
