import type { DuckDBConnection } from '@duckdb/node-api';
import { versionColumns } from '../history/retyped-columns.js';
import type { DiffKey } from './table-diff.js';

const META = ['_createdAt', '_updatedAt', '_createdByUserId'];

/**
 * The keys a diff compares, keyed like an export: the meta keys (but `_id`, which names the record),
 * then each field's column with its `.status` and `.error`, in schema order (a removed field's kept
 * column after them); not `_truncated` nor `_syncId`, which the mirror keeps for itself. Each is read as
 * the version's own value (a retype's kept column for the versions before it).
 */
export async function diffKeys(connection: DuckDBConnection, tableId: string, mirrorTable: string): Promise<DiffKey[]> {
  const reader = await connection.runAndReadAll(
    'SELECT key, status_key, error_key FROM _tds_columns WHERE table_id = $1 ORDER BY removed, position',
    [tableId],
  );
  const fields = reader
    .getRowObjectsJS()
    .flatMap((row) => [row.key, row.status_key, row.error_key].filter((key) => key !== null).map(String));
  const columns = new Map((await versionColumns(connection, mirrorTable)).map((column) => [column.key, column]));
  return [...META, ...fields].filter((key) => columns.has(key)).map((key) => columns.get(key)!);
}
