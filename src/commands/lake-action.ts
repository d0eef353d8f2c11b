import { readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import type { Context } from '../core/context.js';
import { TdsError, UsageError } from '../core/errors.js';
import { loadSettings } from '../config/settings.js';
import { openDatabase } from '../duckdb/engine.js';
import { compactFolder } from '../lake/compact.js';
import { checkLake } from '../lake/lake-check.js';
import { folderIdentity, lakeFolder } from '../lake/lake.js';
import { openMirror } from '../mirror/mirror-db.js';

export interface LakeCompactOptions {
  dropChanges?: boolean;
}

export interface LakeCheckOptions {
  db?: string;
  json?: boolean;
}

export async function lakeCompactAction(ctx: Context, dir: string, tables: string[], options: LakeCompactOptions): Promise<void> {
  const root = resolve(dir);
  const folders = await tableFolders(root, tables);
  const db = await openDatabase(':memory:', { readOnly: false, what: 'the lake' });
  try {
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
  }
}

export async function lakeCheckAction(ctx: Context, dir: string, options: LakeCheckOptions, command: Command): Promise<void> {
  const settings = await loadSettings(ctx, command);
  const root = resolve(dir);
  const db = await openMirror(settings.db, { readOnly: true });
  try {
    const checks = await checkLake(db.connection, root);
    if (options.json) ctx.io.stdout.write(`${JSON.stringify(checks)}\n`);
    for (const check of checks) {
      if (check.retyped.length > 0) {
        ctx.io.stderr.write(
          `${check.mirrorTable}: ${check.retyped.join(', ')} left out of the checksum (retyped: older files keep the old type)\n`,
        );
      }
      ctx.io.stderr.write(
        check.matches
          ? `${check.mirrorTable}: the lake matches the mirror (${check.mirror.rows} rows)\n`
          : `${check.mirrorTable}: the lake differs: mirror ${check.mirror.rows} rows (checksum ${check.mirror.checksum}), lake ${check.lake.rows} rows (checksum ${check.lake.checksum})\n`,
      );
    }
    const differing = checks.filter((check) => !check.matches);
    if (differing.length > 0) {
      throw new TdsError('CHECK_FAILED', `the lake ${dir} differs from the mirror in ${differing.map((c) => c.mirrorTable).join(', ')}`, {
        hint: 'the next `tds sync --lake` writes the partitions a lake lacks; a lake copied from elsewhere may be older than the mirror',
      });
    }
  } finally {
    db.close();
  }
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
