import type { Command } from 'commander';
import type { Context } from '../core/context.js';
import { UsageError } from '../core/errors.js';
import { loadSettings } from '../config/settings.js';
import { runSync } from '../mirror/sync-run.js';
import type { HeaderMode } from '../records/shape-options.js';
import { withClient } from './client.js';

export interface SyncOptions {
  workspace: string[];
  all?: boolean;
  db?: string;
  full?: boolean;
  follow?: boolean;
  every?: number;
  header?: HeaderMode;
  json?: boolean;
}

const DEFAULT_EVERY_SECONDS = 10;

export async function syncAction(ctx: Context, tables: string[], options: SyncOptions, command: Command): Promise<void> {
  if (options.every !== undefined && !options.follow) throw new UsageError('--every goes with --follow');
  if (options.all && (tables.length > 0 || options.workspace.length > 0)) {
    throw new UsageError('--all already takes every table; leave out the tables and --workspace');
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
    }),
  );
}
