import { resolve } from 'node:path';
import type { Command } from 'commander';
import { type Context, UsageError, MAX_DURATION_DAYS, parseDuration } from '../core/index.js';
import { loadSettings, type Settings } from '../config/index.js';
import { waitOn, runSync, type TableSyncResult } from '../mirror/index.js';
import type { HeaderMode } from '../records/index.js';
import { observedText, tallyText, readChecksFile, FollowNotifier, notifyTarget, runChecks } from '../check/index.js';
import type { ApiClient } from '../http/index.js';
import { withClient } from './connect.js';
import { writeLake } from '../lake/index.js';
import type { Database } from '../duckdb/index.js';

// The action of `tds sync` (with --lake and --check).

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
