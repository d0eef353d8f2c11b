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
