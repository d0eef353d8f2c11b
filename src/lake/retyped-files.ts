import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { quoteIdent, quoteLiteral } from '../duckdb/index.js';
import { convertExpression } from '../mirror/history/index.js';
import type { SqlType } from '../records/index.js';

// A retyped field keeps its old type in older files of the lake. Read together by name, DuckDB gives such
// a column one type for every file and casts each file's values to it as it reads them: a cast that
// fails on a value (the text "hello" as JSON, text as a list, a number as a date) fails the whole read,
// and one that succeeds is not the mirror's conversion (a number 2 becomes the text "2.0", where the
// mirror converted it as the service's value would be typed, "2"). So the lake's DuckDB reads (the
// README's recipes, `tds lake check`, `tds lake compact`) never read files of two types of a column in
// one read_parquet: the change partitions go in runs, in sync order, within which each retyped column
// has one type; each run is read by itself, its older values converted as the mirror converts them
// (convertExpression) into the type readers get (the newest file's, or the mirror's when it is known),
// and the runs are put together by name.

/** A column whose type is not the same in every file of a table's folder. */
export interface RetypedColumn {
  key: string;
  /** The type readers get. */
  type: SqlType;
  /** The snapshot's type of the column, when it is another. */
  snapshotType?: SqlType;
}

/** Change partitions next to each other in sync order whose files hold each retyped column in one type. */
export interface PartitionRun {
  syncIds: number[];
  /** The retyped columns these files hold in another type than readers get, with that type. */
  older: Array<{ key: string; type: SqlType }>;
}

/** How a table folder is read when a column's type is not the same in all its files. */
export interface RetypedFiles {
  columns: RetypedColumn[];
  /** Every change partition of the folder, in runs (empty when no change file holds an older type). */
  runs: PartitionRun[];
}

const SQL_TYPES: ReadonlySet<string> = new Set<SqlType>(['VARCHAR', 'DOUBLE', 'BOOLEAN', 'TIMESTAMPTZ', 'VARCHAR[]', 'JSON']);

/** DuckDB's name of a column type as tds's SqlType (undefined for the lake's own columns: BIGINT and such). */
function sqlType(described: string): SqlType | undefined {
  const type = described === 'TIMESTAMP WITH TIME ZONE' ? 'TIMESTAMPTZ' : described;
  return SQL_TYPES.has(type) ? (type as SqlType) : undefined;
}

/**
 * The columns of a table's folder whose type differs between its files (every whole change partition,
 * those a snapshot holds too, and the snapshot), each with the type readers get: `targets` (the
 * mirror's) when it has the key, else the type of the newest file that has the column; and the change
 * partitions in the runs they are read in.
 */
export async function retypedFiles(
  connection: DuckDBConnection,
  folder: string,
  state: { snapshotAsOf?: number; compacted: readonly number[]; changes: readonly number[] },
  targets?: ReadonlyMap<string, string>,
): Promise<RetypedFiles> {
  const partitions = [...state.compacted, ...state.changes];
  const byFile = await typesByFile(connection, [
    ...partitions.map((syncId) => join(folder, 'changes', `sync_id=${syncId}`, '*.parquet')),
    ...(state.snapshotAsOf === undefined ? [] : [join(folder, 'snapshot', `as_of=${state.snapshotAsOf}`, '*.parquet')]),
  ]);
  const snapshot = state.snapshotAsOf === undefined ? undefined : byFile.at(-1);
  const changes = byFile.slice(0, partitions.length);
  const keys = new Set(byFile.flatMap((types) => [...types.keys()]));
  const columns: RetypedColumn[] = [];
  for (const key of keys) {
    const newest =
      [...changes]
        .reverse()
        .find((types) => types.has(key))
        ?.get(key) ?? snapshot?.get(key);
    const type = sqlType(targets?.get(key) ?? '') ?? newest;
    if (type === undefined) continue;
    const snapshotType = snapshot?.get(key);
    const snapshotDiffers = snapshotType !== undefined && snapshotType !== type;
    if (!changes.some((types) => (types.get(key) ?? type) !== type) && !snapshotDiffers) continue;
    columns.push({ key, type, ...(snapshotDiffers ? { snapshotType } : {}) });
  }
  const runs: PartitionRun[] = [];
  changes.forEach((types, i) => {
    const older = columns.flatMap(({ key, type }) => {
      const held = types.get(key);
      return held !== undefined && held !== type ? [{ key, type: held }] : [];
    });
    const last = runs.at(-1);
    if (last && JSON.stringify(last.older) === JSON.stringify(older)) last.syncIds.push(partitions[i]!);
    else runs.push({ syncIds: [partitions[i]!], older });
  });
  return { columns, runs: runs.some((run) => run.older.length > 0) ? runs : [] };
}

/**
 * The column types of each of the files (globs of one file each), in their order. Files of one schema
 * are described once: `parquet_schema` tells them apart in one read of their footers.
 */
async function typesByFile(connection: DuckDBConnection, files: readonly string[]): Promise<Array<Map<string, SqlType>>> {
  if (files.length === 0) return [];
  const reader = await connection.runAndReadAll(
    `SELECT file_name, string_agg(concat_ws(':', name, type, converted_type, logical_type), ',') AS schema
     FROM parquet_schema([${files.map(quoteLiteral).join(', ')}]) GROUP BY file_name`,
  );
  const schemaOf = new Map(reader.getRowObjectsJS().map((row) => [String(row.file_name), String(row.schema)]));
  const described = new Map<string, Map<string, SqlType>>();
  const result: Array<Map<string, SqlType>> = [];
  for (const glob of files) {
    const folder = glob.slice(0, glob.lastIndexOf('/') + 1);
    const file = [...schemaOf.keys()].find((name) => name.startsWith(folder));
    if (file === undefined) {
      result.push(new Map());
      continue;
    }
    const schema = schemaOf.get(file)!;
    let types = described.get(schema);
    if (!types) {
      const columns = await connection.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet(${quoteLiteral(file)})`);
      types = new Map();
      for (const row of columns.getRowObjectsJS()) {
        const type = sqlType(String(row.column_type));
        if (type !== undefined) types.set(String(row.column_name), type);
      }
      described.set(schema, types);
    }
    result.push(types);
  }
  return result;
}

/**
 * Globs of the partition folders of a run: the decimal numbers from its first sync to its last in the
 * fewest patterns (`sync_id=[1-9]`, `sync_id=1[0-4]`), those that hold a partition of the run. No other
 * run's partition is between them, and a glob that matches no file fails DuckDB's read.
 */
export function runGlobs(syncIds: readonly number[]): string[] {
  const first = syncIds[0]!;
  const last = syncIds.at(-1)!;
  const globs: string[] = [];
  for (let digits = String(first).length; digits <= String(last).length; digits += 1) {
    const from = Math.max(first, digits === 1 ? 0 : 10 ** (digits - 1));
    const to = Math.min(last, 10 ** digits - 1);
    globs.push(...sameLengthGlobs(String(from), String(to)));
  }
  return globs.filter((glob) => syncIds.some((syncId) => new RegExp(`^${glob}$`).test(String(syncId))));
}

/** The numbers from `low` to `high` (as many digits each) as patterns of digits and digit classes. */
function sameLengthGlobs(low: string, high: string): string[] {
  if (low === high) return [low];
  if (low[0] === high[0]) return sameLengthGlobs(low.slice(1), high.slice(1)).map((glob) => low[0] + glob);
  const rest = low.length - 1;
  const globs: string[] = [];
  let firstDigit = Number(low[0]);
  let lastDigit = Number(high[0]);
  if (low.slice(1) !== '0'.repeat(rest)) {
    globs.push(...sameLengthGlobs(low.slice(1), '9'.repeat(rest)).map((glob) => low[0] + glob));
    firstDigit += 1;
  }
  const highTail = high.slice(1) !== '9'.repeat(rest);
  if (highTail) lastDigit -= 1;
  if (firstDigit <= lastDigit) {
    globs.push(`${firstDigit === lastDigit ? firstDigit : `[${firstDigit}-${lastDigit}]`}${'[0-9]'.repeat(rest)}`);
  }
  if (highTail) globs.push(...sameLengthGlobs('0'.repeat(rest), high.slice(1)).map((glob) => high[0] + glob));
  return globs;
}

/** The `* REPLACE (…)` of a run's read: the columns its files hold in an older type, converted as the mirror converts them. */
export function runReplace(run: PartitionRun, columns: readonly RetypedColumn[]): string {
  const converted = run.older.map(({ key, type }) => {
    const to = columns.find((column) => column.key === key)!.type;
    return `${convertExpression(quoteIdent(key), type, to)} AS ${quoteIdent(key)}`;
  });
  return converted.length === 0 ? '' : ` REPLACE (${converted.join(', ')})`;
}

/** The `* REPLACE (…)` of a read of the snapshot: its retyped columns converted as the mirror converts them. */
export function snapshotReplace(columns: readonly RetypedColumn[]): string {
  const converted = columns
    .filter((column) => column.snapshotType !== undefined)
    .map((column) => `${convertExpression(quoteIdent(column.key), column.snapshotType!, column.type)} AS ${quoteIdent(column.key)}`);
  return converted.length === 0 ? '' : ` REPLACE (${converted.join(', ')})`;
}
