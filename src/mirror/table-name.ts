import type { DuckDBConnection } from '@duckdb/node-api';

// A mirror table's name: made from the service table's, none of the names the database already has.

/** `🚀 Leads` → `leads`: lower snake case of the letters and digits (accents dropped); `table` when none is left. */
export function snakeName(name: string): string {
  const snake = name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  if (snake === '') return 'table';
  return /^\d/.test(snake) ? `t_${snake}` : snake;
}

/**
 * The mirror table name for a service table: its snake name; when another table has that (or it is a
 * name of DuckDB's catalog), the workspace's snake name in front (`sales_contacts`); then `_2`, `_3`, …
 * `taken` holds every name in use (other mirror tables, and any other table of the database).
 */
export function mirrorTableName(table: { name: string; workspaceName: string }, taken: ReadonlySet<string>): string {
  const free = (name: string): boolean => !taken.has(name) && !SYSTEM_NAME.test(name);
  const base = snakeName(table.name);
  if (free(base)) return base;
  const joined = `${snakeName(table.workspaceName)}_${base}`;
  // a workspace named `pg` would make every prefixed name a catalog name
  const prefixed = SYSTEM_NAME.test(joined) ? `t_${joined}` : joined;
  if (free(prefixed)) return prefixed;
  for (let n = 2; ; n += 1) if (free(`${prefixed}_${n}`)) return `${prefixed}_${n}`;
}

/**
 * Names DuckDB's own catalog answers to (`duckdb_tables`, `sqlite_master`, `information_schema`,
 * `pg_catalog`, …), which `SHOW TABLES`, `DESCRIBE` and the hints of tds rely on: a mirror table taking
 * one would shadow it, so such a name counts as taken.
 */
const SYSTEM_NAME = /^(duckdb_|sqlite_|pg_|information_schema$)/;

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
