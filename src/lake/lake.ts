import { createHash } from 'node:crypto';
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { PRIVATE_FILE_MODE } from '../core/index.js';
import { firstLine, quoteIdent, quoteLiteral } from '../duckdb/index.js';
import { versionColumns, type VersionColumn } from '../mirror/history/index.js';
import { commitPartition, LAKE_FOLDER_MODE, SUCCESS_FILE } from './commit-partition.js';
import { inLakeNames, lakeColumns, relabelledColumns, type LakeColumns } from './lake-columns.js';
import { tableReadme } from './recipes.js';
import { retypedFiles } from './retyped-files.js';

// The lake (`tds sync --lake DIR`): what each sync of a mirror table wrote, as Parquet files in Hive
// partitions that Spark, Trino, BigQuery, Athena and DuckDB read without tds. This file writes
// it: `writeLake` after a table's sync, `lakeFolder` for a table's folder name, and the `_tds_lake` table
// that records which syncs reached which lake.
//
// A partition is derived from the mirror alone (never a second read of the service): sync N wrote the
// versions whose `_syncId` is N (in T, or in T__history when a later sync replaced them) and deleted
// the rows whose version in T__history has `_replacedBy` N and `_change` 'deleted'. So a partition is
// the same whenever it is written, and a sync killed before its partition reached the lake leaves it
// to the next sync, which writes every partition the lake lacks.

/** The partition's own columns, after the mirror's. */
export const CHANGE_COLUMN = '_change';
export const VALID_FROM_COLUMN = '_valid_from';
/** The folder of each sync's partition under `<table>/changes/`, Hive style. */
export const SYNC_PARTITION = 'sync_id';
/** The folder of a snapshot under `<table>/snapshot/`: the last sync it holds. */
export const SNAPSHOT_PARTITION = 'as_of';
/** A snapshot version's end (null: current). */
export const VALID_TO_COLUMN = '_valid_to';
/** Where files are written before their rename; readers skip folders that start with `_`. */
export const TEMPORARY = '_temporary';

/** The mirror's record of the partitions each lake holds (so a missing one is written by the next sync). */
const LAKE_TABLE = `CREATE TABLE IF NOT EXISTS _tds_lake (
  lake_dir VARCHAR NOT NULL,
  sync_id BIGINT NOT NULL,
  table_id VARCHAR NOT NULL,
  mirror_table VARCHAR NOT NULL,
  folder VARCHAR NOT NULL,
  rows BIGINT NOT NULL,
  written_at TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (lake_dir, sync_id)
)`;

/** The mirror table and history of one service table (from _tds_tables). */
export interface LakeTable {
  tableId: string;
  name: string;
  mirrorTable: string;
  historyTable: string;
}

export interface LakeWrite {
  /** The lake's folder (absolute). */
  dir: string;
  /** Only this table (its ID); every mirrored table when absent. */
  tableId?: string;
}

/** One partition written to the lake. */
export interface PartitionWritten {
  mirrorTable: string;
  syncId: number;
  rows: number;
}

/**
 * Writes the partitions the lake lacks for each table: one per finished sync of the table that changed
 * something (a sync that changed nothing is recorded, with no folder). Returns what it wrote.
 */
export async function writeLake(connection: DuckDBConnection, request: LakeWrite): Promise<PartitionWritten[]> {
  await connection.run(LAKE_TABLE);
  const written: PartitionWritten[] = [];
  for (const table of await lakeTables(connection, request.tableId)) {
    const folder = join(request.dir, lakeFolder(table.mirrorTable));
    const missing = await missingSyncs(connection, request.dir, table);
    const known = await folderIdentity(folder);
    const columns = await lakeColumns(connection, table.tableId, known?.columns);
    const renamed = JSON.stringify(columns) !== JSON.stringify(known?.columns);
    // the names are kept before a file uses them, so every partition after names each field the same
    if (missing.length > 0 && renamed) await saveIdentity(folder, { ...identityOf(table), columns });
    for (const syncId of missing) {
      const rows = await writePartition(connection, { dir: request.dir, table, syncId, columns });
      await connection.run('INSERT OR REPLACE INTO _tds_lake VALUES ($1, $2, $3, $4, $5, $6, now())', [
        request.dir,
        syncId,
        table.tableId,
        table.mirrorTable,
        join(request.dir, lakeFolder(table.mirrorTable)),
        rows,
      ]);
      if (rows > 0) written.push({ mirrorTable: table.mirrorTable, syncId, rows });
    }
    if (missing.length > 0 || (renamed && known !== undefined)) await describeFolder(connection, folder, { ...identityOf(table), columns });
  }
  return written;
}

function identityOf(table: FolderIdentity): FolderIdentity {
  return { tableId: table.tableId, name: table.name, mirrorTable: table.mirrorTable };
}

/** The tables of the mirror (or the one asked for) with their history tables. */
export async function lakeTables(connection: DuckDBConnection, tableId?: string): Promise<LakeTable[]> {
  const reader = await connection.runAndReadAll(
    'SELECT table_id, name, mirror_table, history_table FROM _tds_tables WHERE history_table IS NOT NULL' +
      (tableId === undefined ? '' : ' AND table_id = $1') +
      ' ORDER BY mirror_table',
    tableId === undefined ? [] : [tableId],
  );
  return reader.getRowObjectsJS().map((row) => ({
    tableId: String(row.table_id),
    name: String(row.name),
    mirrorTable: String(row.mirror_table),
    historyTable: String(row.history_table),
  }));
}

/**
 * The table's syncs whose partition the lake lacks: not recorded yet, or recorded with rows and yet not
 * whole on disk (removed by hand, or left without `_SUCCESS` by a crash) unless a snapshot holds them.
 */
async function missingSyncs(connection: DuckDBConnection, dir: string, table: LakeTable): Promise<number[]> {
  const reader = await connection.runAndReadAll(
    'SELECT s.sync_id, l.rows FROM _tds_syncs s LEFT JOIN _tds_lake l ON l.sync_id = s.sync_id AND l.lake_dir = $2 ' +
      'WHERE s.table_id = $1 ORDER BY s.sync_id',
    [table.tableId, dir],
  );
  const state = await folderState(join(dir, lakeFolder(table.mirrorTable)));
  const whole = new Set(state.changes);
  return reader
    .getRowObjectsJS()
    .filter((row) => {
      if (row.rows === null) return true;
      const syncId = Number(row.sync_id);
      return Number(row.rows) > 0 && !whole.has(syncId) && (state.snapshotAsOf === undefined || syncId > state.snapshotAsOf);
    })
    .map((row) => Number(row.sync_id));
}

/**
 * The versions sync N wrote, each with how it came (`inserted`, or `updated` when it replaced a version
 * of the same row) and from when it holds (its `_updatedAt`), and a tombstone carrying the last values
 * of each row it found gone (from the start of the pass that found it). Values are read as the table as
 * it was gives them (`columns`: versionColumns), so the columns a retype keeps are not part of it.
 */
export function partitionQuery(table: LakeTable, syncId: number, columns: readonly VersionColumn[]): string {
  const t = quoteIdent(table.mirrorTable);
  const h = quoteIdent(table.historyTable);
  const n = String(syncId);
  const values = columns.map((column) => `${column.sql} AS ${quoteIdent(column.key)}`).join(', ');
  return `WITH written AS (
      SELECT ${values} FROM ${t} WHERE "_syncId" = ${n}
      UNION ALL
      SELECT ${values} FROM ${h} WHERE "_syncId" = ${n}
    ), replaced AS (
      SELECT DISTINCT "_id" FROM ${h} WHERE "_replacedBy" = ${n} AND "_change" = 'updated'
    ), gone AS (
      SELECT ${values}, "_replacedAt" AS gone_at FROM ${h} WHERE "_replacedBy" = ${n} AND "_change" = 'deleted'
    )
    SELECT written.*,
      CASE WHEN written."_id" IN (SELECT "_id" FROM replaced) THEN 'updated' ELSE 'inserted' END AS ${CHANGE_COLUMN},
      written."_updatedAt"::TIMESTAMPTZ AS ${VALID_FROM_COLUMN}
    FROM written
    UNION ALL
    SELECT gone.* EXCLUDE (gone_at), 'deleted' AS ${CHANGE_COLUMN}, gone_at AS ${VALID_FROM_COLUMN} FROM gone`;
}

interface PartitionTarget {
  dir: string;
  table: LakeTable;
  syncId: number;
  /** The lake's names of the table's field columns. */
  columns: LakeColumns;
}

/** One partition of `<table>/changes/`; returns the rows written (0: no folder). */
async function writePartition(connection: DuckDBConnection, target: PartitionTarget): Promise<number> {
  const changes = join(target.dir, lakeFolder(target.table.mirrorTable), 'changes');
  const versions = await versionColumns(connection, target.table.mirrorTable, target.syncId);
  return commitPartition({
    connection,
    query: partitionQuery(target.table, target.syncId, inLakeNames(versions, target.columns)),
    folder: join(changes, `${SYNC_PARTITION}=${target.syncId}`),
    temporary: join(changes, TEMPORARY),
  });
}

/** The longest folder name a table gets (file systems allow 255 bytes a name). */
const FOLDER_MAX = 100;

/**
 * A table's folder in the lake: its mirror table name (lower snake case) with anything else than
 * letters, digits, `_` and `-` replaced, never `.`/`..` or hidden, and cut with a hash past 100
 * characters, so any table name makes one safe folder.
 */
export function lakeFolder(mirrorTable: string): string {
  let name = mirrorTable.replace(/[^A-Za-z0-9_-]/g, '_').replace(/^[_-]+/, '');
  if (name === '') name = 'table';
  if (name.length <= FOLDER_MAX) return name;
  const hash = createHash('sha256').update(mirrorTable).digest('hex').slice(0, 8);
  return `${name.slice(0, FOLDER_MAX - 9)}_${hash}`;
}

/** The partitions of a table's `changes/` (or `snapshot/`) folder that are whole, by their number. */
export async function wholePartitions(folder: string, key: string): Promise<number[]> {
  const entries = await readdir(folder, { withFileTypes: true }).catch(() => []);
  const found: number[] = [];
  for (const entry of entries) {
    const match = new RegExp(`^${key}=(\\d+)$`).exec(entry.name);
    if (!entry.isDirectory() || !match) continue;
    const inside = await readdir(join(folder, entry.name));
    if (inside.includes(SUCCESS_FILE)) found.push(Number(match[1]));
  }
  return found.sort((a, b) => a - b);
}

/** What a table's folder says about itself (`_table.json`), so the lake is read and compacted without the mirror. */
export interface FolderIdentity {
  tableId: string;
  name: string;
  mirrorTable: string;
  /** Each field's column name in the lake, by field ID (lake-columns.ts); absent in folders written before. */
  columns?: LakeColumns;
}

const IDENTITY_FILE = '_table.json';

export async function folderIdentity(folder: string): Promise<FolderIdentity | undefined> {
  try {
    return JSON.parse(await readFile(join(folder, IDENTITY_FILE), 'utf8')) as FolderIdentity;
  } catch {
    return undefined;
  }
}

async function saveIdentity(folder: string, identity: FolderIdentity): Promise<void> {
  await mkdir(folder, { recursive: true, mode: LAKE_FOLDER_MODE });
  await writeFile(join(folder, IDENTITY_FILE), `${JSON.stringify(identity, null, 2)}\n`, { mode: PRIVATE_FILE_MODE });
}

/** What a table's folder holds now: its newest whole snapshot and its whole change partitions. */
export interface FolderState {
  snapshotAsOf?: number;
  /** The change partitions newer than the snapshot (all of them without one). */
  changes: number[];
  /** The change partitions the snapshot holds too (compacted without --drop-changes). */
  compacted: number[];
}

export async function folderState(folder: string): Promise<FolderState> {
  const snapshots = await wholePartitions(join(folder, 'snapshot'), SNAPSHOT_PARTITION);
  const snapshotAsOf = snapshots.at(-1);
  const whole = await wholePartitions(join(folder, 'changes'), SYNC_PARTITION);
  const changes = whole.filter((n) => snapshotAsOf === undefined || n > snapshotAsOf);
  const compacted = whole.filter((n) => snapshotAsOf !== undefined && n <= snapshotAsOf);
  return snapshotAsOf === undefined ? { changes, compacted } : { snapshotAsOf, changes, compacted };
}

/** What keeps a table's folder from being read whole: a partition without `_SUCCESS`, a file that is not Parquet. */
export interface LakeProblem {
  /** The partition folder or file, relative to the table's folder. */
  path: string;
  problem: string;
}

/**
 * Every partition of the folder (changes and snapshots) that lacks its `_SUCCESS`, and every file in one
 * whose Parquet footer cannot be read (a file cut short, or not Parquet at all), each named.
 */
export async function folderProblems(connection: DuckDBConnection, folder: string): Promise<LakeProblem[]> {
  const problems: LakeProblem[] = [];
  for (const [kind, key] of [
    ['changes', SYNC_PARTITION],
    ['snapshot', SNAPSHOT_PARTITION],
  ] as const) {
    const entries = await readdir(join(folder, kind), { withFileTypes: true }).catch(() => []);
    const partitions = entries.filter((entry) => entry.isDirectory() && new RegExp(`^${key}=\\d+$`).test(entry.name));
    for (const partition of partitions.map((entry) => entry.name).sort()) {
      const inside = await readdir(join(folder, kind, partition));
      if (!inside.includes(SUCCESS_FILE)) problems.push({ path: join(kind, partition), problem: `incomplete (no ${SUCCESS_FILE})` });
      for (const name of inside.filter((file) => file.endsWith('.parquet')).sort()) {
        const path = join(folder, kind, partition, name);
        const unreadable = await connection.run(`SELECT num_rows FROM parquet_file_metadata(${quoteLiteral(path)})`).then(
          () => undefined,
          (error: unknown) =>
            firstLine(error)
              .replace(/^[A-Za-z ]+ Error: /, '')
              .replace(/ ?(["'])[^"']*\1/g, ''),
        );
        if (unreadable !== undefined) {
          problems.push({ path: join(kind, partition, name), problem: `not a readable Parquet file (${unreadable})` });
        }
      }
    }
  }
  return problems;
}

/** The folder's `_table.json` and README.md, written again for what the folder holds now. */
export async function describeFolder(connection: DuckDBConnection, folder: string, table: FolderIdentity): Promise<void> {
  const state = await folderState(folder);
  if (state.snapshotAsOf === undefined && state.changes.length === 0) return;
  await saveIdentity(folder, { ...identityOf(table), ...(table.columns ? { columns: table.columns } : {}) });
  const files = [
    ...(state.changes.length > 0 ? [join(folder, 'changes', `${SYNC_PARTITION}=*`, '*.parquet')] : []),
    ...(state.snapshotAsOf !== undefined ? [join(folder, 'snapshot', `${SNAPSHOT_PARTITION}=${state.snapshotAsOf}`, '*.parquet')] : []),
  ];
  const described = await connection.runAndReadAll(
    `DESCRIBE SELECT * FROM read_parquet([${files.map(quoteLiteral).join(', ')}], union_by_name = true)`,
  );
  const own = new Set([CHANGE_COLUMN, VALID_FROM_COLUMN, VALID_TO_COLUMN, '_replacedBy', SYNC_PARTITION]);
  const retyped = await retypedFiles(connection, folder, state);
  // a retyped column is read in its newest type, not the one DuckDB would cast every file to
  const readAs = new Map(
    retyped.columns.map((column) => [column.key, column.type === 'TIMESTAMPTZ' ? 'TIMESTAMP WITH TIME ZONE' : column.type]),
  );
  const columns = described
    .getRowObjectsJS()
    .map((row) => ({ key: String(row.column_name), type: readAs.get(String(row.column_name)) ?? String(row.column_type) }))
    .filter((column) => !own.has(column.key));
  const readme = tableReadme({
    name: table.name,
    folder: lakeFolder(table.mirrorTable),
    columns,
    ...(state.snapshotAsOf !== undefined ? { snapshotAsOf: state.snapshotAsOf } : {}),
    hasChanges: state.changes.length > 0,
    retyped,
    relabelled: relabelledColumns(table.columns),
  });
  await writeFile(join(folder, 'README.md'), readme, { mode: PRIVATE_FILE_MODE });
}
