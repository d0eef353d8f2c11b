import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { quoteIdent, quoteLiteral } from '../duckdb/index.js';
import { convertExpression } from '../mirror/history/index.js';
import type { SqlType } from '../records/index.js';

// A retyped field keeps its old type in older files of the lake. Read together by name, DuckDB gives such
// a column the files' common type by its own cast (a number 2 becomes the text "2.0"), where the mirror
// converted it as the service's value would be typed ("2"). So the lake's DuckDB reads (the README's
// recipes, `tds lake check`, `tds lake compact`) read each older file's values back in their own type and
// convert them as the mirror does (convertExpression), into the type readers get: the newest file's, or
// the mirror's when it is known.

/** A column whose type is not the same in every file of a table's folder. */
export interface RetypedColumn {
  key: string;
  /** The type readers get. */
  type: SqlType;
  /** The change partitions whose file holds the column in another type, by that type. */
  older: Array<{ type: SqlType; syncIds: number[] }>;
  /** The snapshot's type of the column, when it is another. */
  snapshotType?: SqlType;
}

const SQL_TYPES: ReadonlySet<string> = new Set<SqlType>(['VARCHAR', 'DOUBLE', 'BOOLEAN', 'TIMESTAMPTZ', 'VARCHAR[]', 'JSON']);

/** DuckDB's name of a column type as tds's SqlType (undefined for the lake's own columns: BIGINT and such). */
function sqlType(described: string): SqlType | undefined {
  const type = described === 'TIMESTAMP WITH TIME ZONE' ? 'TIMESTAMPTZ' : described;
  return SQL_TYPES.has(type) ? (type as SqlType) : undefined;
}

/**
 * The columns of a table's folder whose type differs between its files (whole change partitions after
 * the snapshot, and the snapshot), each with the type readers get: `targets` (the mirror's) when it has
 * the key, else the type of the newest file that has the column.
 */
export async function retypedColumns(
  connection: DuckDBConnection,
  folder: string,
  state: { snapshotAsOf?: number; changes: readonly number[] },
  targets?: ReadonlyMap<string, string>,
): Promise<RetypedColumn[]> {
  const byFile = await typesByFile(connection, [
    ...state.changes.map((syncId) => join(folder, 'changes', `sync_id=${syncId}`, '*.parquet')),
    ...(state.snapshotAsOf === undefined ? [] : [join(folder, 'snapshot', `as_of=${state.snapshotAsOf}`, '*.parquet')]),
  ]);
  const snapshot = state.snapshotAsOf === undefined ? undefined : byFile.at(-1);
  const changes = byFile.slice(0, state.changes.length);
  const keys = new Set(byFile.flatMap((types) => [...types.keys()]));
  const retyped: RetypedColumn[] = [];
  for (const key of keys) {
    const newest =
      [...changes]
        .reverse()
        .find((types) => types.has(key))
        ?.get(key) ?? snapshot?.get(key);
    const target = sqlType(targets?.get(key) ?? '') ?? newest;
    if (target === undefined) continue;
    const older = new Map<SqlType, number[]>();
    changes.forEach((types, i) => {
      const type = types.get(key);
      if (type !== undefined && type !== target) older.set(type, [...(older.get(type) ?? []), state.changes[i]!]);
    });
    const snapshotType = snapshot?.get(key);
    const snapshotDiffers = snapshotType !== undefined && snapshotType !== target;
    if (older.size === 0 && !snapshotDiffers) continue;
    retyped.push({
      key,
      type: target,
      older: [...older].map(([type, syncIds]) => ({ type, syncIds })),
      ...(snapshotDiffers ? { snapshotType } : {}),
    });
  }
  return retyped;
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

/** `sync_id` in the given partitions, as ranges. */
function inSyncs(syncIds: readonly number[]): string {
  const ranges: string[] = [];
  const sorted = [...syncIds].sort((a, b) => a - b);
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j += 1;
    ranges.push(i === j ? `sync_id = ${sorted[i]}` : `sync_id BETWEEN ${sorted[i]} AND ${sorted[j]}`);
    i = j + 1;
  }
  return ranges.join(' OR ');
}

/**
 * The `* REPLACE (…)` of a read of the change partitions together: each retyped column read back, file
 * by file, in its own type and converted as the mirror converts it ('' when nothing is retyped).
 */
export function changesReplace(retyped: readonly RetypedColumn[]): string {
  if (retyped.length === 0) return '';
  const columns = retyped.map((column) => {
    const name = quoteIdent(column.key);
    const cases = column.older.map(
      (older) => `WHEN ${inSyncs(older.syncIds)} THEN ${convertExpression(`TRY_CAST(${name} AS ${older.type})`, older.type, column.type)}`,
    );
    const current = `TRY_CAST(${name} AS ${column.type})`;
    return `${cases.length > 0 ? `CASE ${cases.join(' ')} ELSE ${current} END` : current} AS ${name}`;
  });
  return ` REPLACE (${columns.join(', ')})`;
}

/** The `* REPLACE (…)` of a read of the snapshot: its retyped columns converted as the mirror converts them. */
export function snapshotReplace(retyped: readonly RetypedColumn[]): string {
  const columns = retyped
    .filter((column) => column.snapshotType !== undefined)
    .map((column) => `${convertExpression(quoteIdent(column.key), column.snapshotType!, column.type)} AS ${quoteIdent(column.key)}`);
  return columns.length === 0 ? '' : ` REPLACE (${columns.join(', ')})`;
}
