import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, rename, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { PRIVATE_FILE_MODE } from '../core/index.js';
import { quoteLiteral } from '../duckdb/index.js';
import { copyToPartial } from '../parquet/index.js';

// How a file of the lake is committed, as Spark's committers make a partition: written under the
// partition's `_temporary/` as `<pid>-<random>.parquet.partial`, synced, renamed into the partition
// folder, then `_SUCCESS`. The lake holds the organization's rows, so its files are the user's alone
// (0600, folders 0700), as the mirror is. A write killed midway leaves its `.partial` in `_temporary/`;
// the next write or compaction there removes it once its writer is gone.

/** Written last in a partition: the partition is whole (Spark's marker). */
export const SUCCESS_FILE = '_SUCCESS';
/** The one data file of a partition tds writes. */
export const PART_FILE = 'part-0.parquet';
export const LAKE_FOLDER_MODE = 0o700;

/**
 * The raw bytes of values one row group holds at most. DuckDB's Parquet writer keeps a whole row group
 * in memory (122,880 rows by default: 230 MB of rows of 2 KB, far past a sync's 64 MB), and a row group
 * takes about 1.5 times its values' bytes while it is compressed.
 */
const ROW_GROUP_BYTES = 8 * 2 ** 20;
/** DuckDB's own bounds of a row group: it rounds up to its vector size, and holds 122,880 rows by default. */
const ROW_GROUP_MIN = 2_048;
const ROW_GROUP_MAX = 122_880;
/** Rows read to measure how wide the rows are. */
const WIDTH_SAMPLE = 2_000;
/** A `.partial` not written to for this long has no writer left, whoever wrote it. */
const STALE_MS = 60 * 60_000;

export interface PartitionCommit {
  connection: DuckDBConnection;
  query: string;
  /** The partition folder the file goes into, with `_SUCCESS` last. */
  folder: string;
  /** Where the file is written first. */
  temporary: string;
  /** A relation with rows as wide as the query's, cheaper to sample (default: the query). */
  sample?: string;
}

/**
 * The query's rows as `folder/part-0.parquet` (zstd), committed as the header says. A folder an
 * earlier, killed run left is replaced (a partition's content is the same by construction). No rows:
 * no folder. Returns the rows written.
 */
export async function commitPartition({ connection, query, folder, temporary, sample }: PartitionCommit): Promise<number> {
  await mkdir(temporary, { recursive: true, mode: LAKE_FOLDER_MODE });
  await removeStalePartials(temporary);
  const aside = join(temporary, `${process.pid}-${randomBytes(6).toString('hex')}.parquet`);
  const partial = await copyToPartial({
    run: (sql) => connection.run(sql),
    query,
    path: aside,
    compression: 'zstd',
    rowGroupSize: await rowGroupSize(connection, sample ?? query),
    mode: PRIVATE_FILE_MODE,
  });
  try {
    const counted = await connection.runAndReadAll(`SELECT num_rows::BIGINT AS n FROM parquet_file_metadata(${quoteLiteral(partial)})`);
    const rows = Number(counted.getRowObjectsJS()[0]?.n ?? 0);
    if (rows === 0) return 0;
    await rm(folder, { recursive: true, force: true });
    await mkdir(folder, { recursive: true, mode: LAKE_FOLDER_MODE });
    await rename(partial, join(folder, PART_FILE));
    await writeFile(join(folder, SUCCESS_FILE), '', { mode: PRIVATE_FILE_MODE });
    await syncFolder(folder);
    return rows;
  } finally {
    await rm(partial, { force: true });
    await rmdir(temporary).catch(() => undefined);
  }
}

/** Rows a row group of the query's file holds: as many as ROW_GROUP_BYTES of its widest sampled rows take. */
async function rowGroupSize(connection: DuckDBConnection, relation: string): Promise<number> {
  const reader = await connection.runAndReadAll(
    `SELECT coalesce(max(strlen(CAST(to_json(x) AS VARCHAR))), 0)::BIGINT AS width FROM (SELECT * FROM (${relation}) LIMIT ${WIDTH_SAMPLE}) x`,
  );
  const width = Math.max(1, Number(reader.getRowObjectsJS()[0]?.width ?? 0));
  return Math.min(ROW_GROUP_MAX, Math.max(ROW_GROUP_MIN, Math.floor(ROW_GROUP_BYTES / width)));
}

/**
 * Removes the `.partial` files of `_temporary/` whose writer is gone: named by a process that no
 * longer runs, or not written to for an hour. A write under way (another process's) is left alone.
 */
export async function removeStalePartials(temporary: string): Promise<void> {
  const names = await readdir(temporary).catch(() => [] as string[]);
  for (const name of names) {
    if (!name.endsWith('.partial')) continue;
    const path = join(temporary, name);
    const writer = /^(\d+)-/.exec(name)?.[1];
    const gone = writer !== undefined && !isRunning(Number(writer));
    const modified = await stat(path).then(
      (stats) => stats.mtimeMs,
      () => undefined,
    );
    if (modified === undefined) continue;
    if (gone || Date.now() - modified > STALE_MS) await rm(path, { force: true });
  }
}

function isRunning(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function syncFolder(folder: string): Promise<void> {
  const handle = await open(folder, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
