import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { hasTable, versionColumns } from '../mirror/history/index.js';
import { quoteIdent } from '../duckdb/index.js';
import { folderIdentity, folderProblems, folderState, lakeFolder, lakeTables, type LakeProblem, type LakeTable } from './lake.js';
import { inLakeNames, lakeColumns } from './lake-columns.js';
import { lakeNowQuery } from './recipes.js';
import { retypedFiles, type RetypedFiles } from './retyped-files.js';

// `tds lake check`: the lake read back as a reader would (the newest snapshot, then the changes after
// it) and compared with the mirror, table by table: the row count and a checksum of every value as
// text, so a partition missing, doubled or wrong shows. Every column counts: a retyped one is compared
// as the mirror's type, the older files' values converted as the mirror converted them. A folder that cannot be read whole (a partition
// without `_SUCCESS`, a file cut short) is named as such, not read. A mirrored table that never went
// to this lake (no folder, no sync recorded as reaching it) is not part of it: named, not compared.

export interface TableCheck {
  mirrorTable: string;
  folder: string;
  /** Columns whose older files hold another type: their values compared as the mirror converted them. */
  retyped: string[];
  mirror: { rows: number; checksum: string };
  /** Null when the folder cannot be read whole (`problems`). */
  lake: { rows: number; checksum: string } | null;
  /** Partitions without `_SUCCESS` and files that are not Parquet: the folder is not what a sync left. */
  problems: LakeProblem[];
  matches: boolean;
}

export interface LakeCheck {
  checks: TableCheck[];
  /** Mirror tables that never went to this lake (`tds sync --lake` of them never ran for it). */
  notInLake: string[];
}

/** Every mirrored table the lake at `dir` holds (or should hold) compared with its folder. */
export async function checkLake(connection: DuckDBConnection, dir: string): Promise<LakeCheck> {
  const checks: TableCheck[] = [];
  const notInLake: string[] = [];
  const reached = await tablesReachingLake(connection, dir);
  for (const table of await lakeTables(connection)) {
    const folder = join(dir, lakeFolder(table.mirrorTable));
    const identity = await folderIdentity(folder);
    if (!reached.has(table.tableId) && identity === undefined) {
      notInLake.push(table.mirrorTable);
      continue;
    }
    // the mirror's columns by the names the lake gives them (a relabelled field keeps its first name there)
    const version = inLakeNames(
      await versionColumns(connection, table.mirrorTable),
      await lakeColumns(connection, table.tableId, identity?.columns),
    );
    const columns = version.map((column) => column.key);
    const values = version.map((column) => `${column.sql} AS ${quoteIdent(column.key)}`).join(', ');
    const mirror = await figures(connection, `(SELECT ${values} FROM ${quoteIdent(table.mirrorTable)})`, columns);
    const state = await folderState(folder);
    const problems = await folderProblems(connection, folder);
    const empty = state.snapshotAsOf === undefined && state.changes.length === 0;
    const retyped =
      problems.length > 0 || empty
        ? { columns: [], runs: [] }
        : await retypedFiles(connection, folder, state, new Map(version.map((column) => [column.key, column.type])));
    const lake =
      problems.length > 0 ? null : empty ? { rows: 0, checksum: '0' } : await lakeFigures(connection, { folder, state, columns, retyped });
    checks.push({
      mirrorTable: table.mirrorTable,
      folder,
      retyped: retyped.columns.map((column) => column.key),
      mirror,
      lake,
      problems,
      matches: lake !== null && mirror.rows === lake.rows && mirror.checksum === lake.checksum,
    });
  }
  return { checks, notInLake };
}

/** The tables a sync recorded as having written to this lake (a folder removed since still counts). */
async function tablesReachingLake(connection: DuckDBConnection, dir: string): Promise<Set<LakeTable['tableId']>> {
  if (!(await hasTable(connection, '_tds_lake'))) return new Set();
  const reader = await connection.runAndReadAll('SELECT DISTINCT table_id FROM _tds_lake WHERE lake_dir = $1', [dir]);
  return new Set(reader.getRowObjectsJS().map((row) => String(row.table_id)));
}

interface LakeSource {
  folder: string;
  state: Awaited<ReturnType<typeof folderState>>;
  columns: string[];
  retyped: RetypedFiles;
}

async function lakeFigures(
  connection: DuckDBConnection,
  { folder, state, columns, retyped }: LakeSource,
): Promise<{ rows: number; checksum: string }> {
  const query = lakeNowQuery({
    folder,
    ...(state.snapshotAsOf !== undefined ? { snapshotAsOf: state.snapshotAsOf } : {}),
    hasChanges: state.changes.length > 0,
    retyped,
  });
  const described = await connection.runAndReadAll(`DESCRIBE ${query}`);
  const present = new Set(described.getRowObjectsJS().map((row) => String(row.column_name)));
  return figures(connection, `(${query})`, columns, present);
}

/** The row count and the XOR of each row's hash, its values as text in the mirror's column order. */
async function figures(
  connection: DuckDBConnection,
  relation: string,
  columns: readonly string[],
  present?: ReadonlySet<string>,
): Promise<{ rows: number; checksum: string }> {
  const parts = columns.map((key) => (present && !present.has(key) ? 'chr(0)' : `coalesce(CAST(${quoteIdent(key)} AS VARCHAR), chr(0))`));
  const reader = await connection.runAndReadAll(
    `SELECT count(*)::BIGINT AS n, coalesce(bit_xor(hash(concat_ws(chr(31), ${parts.join(', ')}))), 0)::VARCHAR AS checksum FROM ${relation}`,
  );
  const row = reader.getRowObjectsJS()[0]!;
  return { rows: Number(row.n), checksum: String(row.checksum) };
}
