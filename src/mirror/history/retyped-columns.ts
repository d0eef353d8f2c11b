import type { DuckDBConnection } from '@duckdb/node-api';
import { quoteIdent } from '../../duckdb/index.js';
import type { SqlType } from '../../records/index.js';
import { hasTable, SYNC_ID_KEY, tableColumns } from './history-objects.js';

// A retype never rewrites history. When a field's column changes type, the column as it was is kept
// beside the new one, in the mirror table and its history, under an archive key (`Code (VARCHAR to
// sync 12)`): the values of every version written up to sync 12 stay there exactly as they were, and
// _tds_retypes says so. The table as it was (the macros T_at_sync and T_at, `tds diff`, `--changes`)
// reads a version's value from the column of its generation, in the column's type of now, converted
// as the service's value would be typed (convertExpression): across a retype and back, every version
// gives back what it held; compared across a retype, a value changes only when the service's did.

const RETYPES_TABLE = `CREATE TABLE IF NOT EXISTS _tds_retypes (
    table_id VARCHAR NOT NULL,
    field_id VARCHAR NOT NULL,
    archive_key VARCHAR NOT NULL,
    archive_type VARCHAR NOT NULL,
    through_sync BIGINT NOT NULL
  )`;

/** A field's column as it was before a retype, kept for the versions written up to `throughSync`. */
export interface ArchivedColumn {
  fieldId: string;
  archiveKey: string;
  archiveType: SqlType;
  throughSync: number;
}

/** The key of a column kept by a retype. */
export const archiveKeyOf = (key: string, type: SqlType, throughSync: number): string => `${key} (${type} to sync ${throughSync})`;

/** The last sync of the mirror: versions written by it or before hold their value in the column kept now. */
export async function lastSyncId(connection: DuckDBConnection): Promise<number> {
  const reader = await connection.runAndReadAll('SELECT coalesce(max(sync_id), 0)::BIGINT AS id FROM _tds_syncs');
  return Number(reader.getRowObjectsJS()[0]!.id);
}

export async function saveArchive(connection: DuckDBConnection, tableId: string, archive: ArchivedColumn): Promise<void> {
  await connection.run(RETYPES_TABLE);
  await connection.run('INSERT INTO _tds_retypes VALUES ($1, $2, $3, $4, $5)', [
    tableId,
    archive.fieldId,
    archive.archiveKey,
    archive.archiveType,
    archive.throughSync,
  ]);
}

/** The table's kept columns, oldest first. */
export async function loadArchives(connection: DuckDBConnection, tableId: string): Promise<ArchivedColumn[]> {
  if (!(await hasTable(connection, '_tds_retypes'))) return [];
  const reader = await connection.runAndReadAll(
    'SELECT field_id, archive_key, archive_type, through_sync FROM _tds_retypes WHERE table_id = $1 ORDER BY through_sync',
    [tableId],
  );
  return reader.getRowObjectsJS().map((row) => ({
    fieldId: String(row.field_id),
    archiveKey: String(row.archive_key),
    archiveType: String(row.archive_type) as SqlType,
    throughSync: Number(row.through_sync),
  }));
}

/**
 * The columns of a version as the table as it was gives them: each of the mirror table's columns (but
 * the kept ones) with the SQL that reads its value in a row of the table or of its history. With
 * `asOfSync`, in the types the fields had at that sync (a lake partition written late holds what it
 * would have held when written at once): a column kept by a later retype is read, and older versions
 * converted to its type.
 */
export async function versionColumns(connection: DuckDBConnection, mirrorTable: string, asOfSync?: number): Promise<VersionColumn[]> {
  const columns = await tableColumns(connection, mirrorTable);
  const owner = await connection.runAndReadAll('SELECT table_id FROM _tds_tables WHERE mirror_table = $1', [mirrorTable]);
  const tableId = owner.getRowObjectsJS()[0]?.table_id;
  const archives = tableId === undefined ? [] : await loadArchives(connection, String(tableId));
  if (archives.length === 0) return columns.map((column) => ({ ...column, sql: quoteIdent(column.key) }));
  const reader = await connection.runAndReadAll('SELECT field_id, key FROM _tds_columns WHERE table_id = $1', [String(tableId)]);
  const keyOf = new Map(reader.getRowObjectsJS().map((row) => [String(row.field_id), String(row.key)]));
  const kept = new Set(archives.map((archive) => archive.archiveKey));
  return columns
    .filter((column) => !kept.has(column.key))
    .map((column) => {
      const field = archives.filter((archive) => keyOf.get(archive.fieldId) === column.key);
      // the column as it was at asOfSync: the first kept column whose versions reach that sync, else today's
      const then = asOfSync === undefined ? undefined : field.find((archive) => archive.throughSync >= asOfSync);
      const older = then === undefined ? field : field.filter((archive) => archive.throughSync < then.throughSync);
      const current = then === undefined ? column : { key: column.key, type: duckdbTypeName(then.archiveType) };
      const source = quoteIdent(then === undefined ? column.key : then.archiveKey);
      if (older.length === 0) return { ...current, sql: source };
      const to = then?.archiveType ?? (column.type === 'TIMESTAMP WITH TIME ZONE' ? 'TIMESTAMPTZ' : (column.type as SqlType));
      const cases = older.map(
        (archive) =>
          `WHEN ${quoteIdent(SYNC_ID_KEY)} <= ${archive.throughSync} THEN ${convertExpression(quoteIdent(archive.archiveKey), archive.archiveType, to)}`,
      );
      return { ...current, sql: `CASE ${cases.join(' ')} ELSE ${source} END` };
    });
}

export interface VersionColumn {
  key: string;
  /** DuckDB's name of its type */
  type: string;
  /** reads the value of a version (a row of the table or of its history) */
  sql: string;
}

/** DuckDB's name of a type as `tableColumns` gives it. */
const duckdbTypeName = (type: SqlType): string => (type === 'TIMESTAMPTZ' ? 'TIMESTAMP WITH TIME ZONE' : type);

/** A double as JSON writes it: 5, not 5.0. */
const numberText = (column: string): string =>
  `CASE WHEN ${column} = trunc(${column}) AND abs(${column}) < 1e15 THEN CAST(CAST(${column} AS BIGINT) AS VARCHAR) ELSE CAST(${column} AS VARCHAR) END`;

/**
 * SQL that turns a value of type `from` into `to` as the service's value would be typed in `to`
 * (records/typed-values.ts): NULL where it would not fit.
 */
export function convertExpression(column: string, from: SqlType, to: SqlType): string {
  if (from === to) return column;
  const text =
    from === 'JSON'
      ? `CASE WHEN json_type(${column}) = 'VARCHAR' THEN json_extract_string(${column}, '$') ELSE CAST(${column} AS VARCHAR) END`
      : from === 'VARCHAR[]'
        ? `CAST(to_json(${column}) AS VARCHAR)`
        : from === 'DOUBLE'
          ? numberText(column)
          : from === 'TIMESTAMPTZ'
            ? `strftime(${column} AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%S.%gZ')`
            : `CAST(${column} AS VARCHAR)`;
  if (to === 'JSON') return from === 'VARCHAR' || from === 'TIMESTAMPTZ' ? `to_json(${text})` : `CAST(${text} AS JSON)`;
  if (to === 'VARCHAR') return text;
  if (to === 'VARCHAR[]') {
    if (from === 'JSON') return `TRY_CAST(${column} AS VARCHAR[])`;
    return `CASE WHEN ${column} IS NULL THEN NULL ELSE [${text}] END`;
  }
  if (to === 'BOOLEAN') return `CASE ${text} WHEN 'true' THEN true WHEN 'false' THEN false END`;
  if (to === 'DOUBLE')
    return `CASE WHEN regexp_full_match(trim(${text}), '-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?') THEN TRY_CAST(trim(${text}) AS DOUBLE) END`;
  return `TRY_CAST(${text} AS ${to})`;
}
