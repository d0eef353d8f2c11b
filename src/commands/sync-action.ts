import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { Context } from '../core/context.js';
import { UsageError } from '../core/errors.js';
import { loadSettings } from '../config/settings.js';
import { MAX_DURATION_DAYS, parseDuration } from '../mirror/diff/diff-bounds.js';
import { runSync } from '../mirror/sync-run.js';
import type { HeaderMode } from '../records/shape-options.js';
import { withClient } from './client.js';
import { writeLake } from '../lake/lake.js';
import type { Database } from '../duckdb/engine.js';
import type { TableSyncResult } from '../mirror/sync-table.js';

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
  lake?: string;
}

const DEFAULT_EVERY_SECONDS = 10;

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
  const settings = await loadSettings(ctx, command);
  await withClient(ctx, settings, (client) =>
    runSync(ctx, client, {
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
