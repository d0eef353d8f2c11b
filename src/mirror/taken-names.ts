import type { DuckDBConnection } from '@duckdb/node-api';

/**
 * Every name of the database's tables, views and macros (the user's own among them), lower case since
 * DuckDB's names ignore case: a new mirror table, history table or macro takes none of them.
 */
export async function takenNames(connection: DuckDBConnection): Promise<Set<string>> {
  const here = "database_name = current_database() AND schema_name = 'main'";
  const reader = await connection.runAndReadAll(
    `SELECT table_name AS name FROM duckdb_tables() WHERE ${here} ` +
      `UNION ALL SELECT view_name FROM duckdb_views() WHERE ${here} AND NOT internal ` +
      `UNION ALL SELECT function_name FROM duckdb_functions() WHERE ${here} AND NOT internal`,
  );
  return new Set(reader.getRowObjectsJS().map((row) => String(row.name).toLowerCase()));
}
