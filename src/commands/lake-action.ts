// The actions of `tds lake compact|check`.

import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { type Context, UsageError, TdsError } from '../core/index.js';
import { loadSettings } from '../config/index.js';
import { folderIdentity, folderProblems, lakeFolder, compactFolder, checkLake, type TableCheck } from '../lake/index.js';
import { quoteLiteral, openDatabase } from '../duckdb/index.js';
import { openMirror, requireMirror, waitOn } from '../mirror/index.js';

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
    const { checks, notInLake } = await checkLake(db.connection, root);
    if (checks.length === 0) {
      throw new TdsError('NOT_FOUND', `the lake ${dir} holds none of the mirror's tables`, {
        hint: 'give the folder that `tds sync --lake DIR` writes, or run `tds sync --lake DIR` first',
      });
    }
    if (options.json) ctx.io.stdout.write(`${JSON.stringify(checks)}\n`);
    for (const table of notInLake) ctx.io.stderr.write(`${table}: not in this lake (never synced with --lake to it); not compared\n`);
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
