import type { StatementType } from '@duckdb/node-api';
import { quoteLiteral } from './sql-text.js';

// What SQL may do outside the database. DuckDB enforces it (external access off, extensions neither
// installed nor loaded, settings locked so that no statement sets them back); the one thing it still
// allows is a statement whose job is files aimed at the database's own files (DuckDB always allows
// those: `COPY … TO 'mirror.duckdb' (USE_TMP_FILE false)` would overwrite the mirror), so statements
// of those types are refused before they run, by the type DuckDB's parser gives them.

export interface FileAccess {
  /** The statement has the user's own file access (tds sql --files); without it, none at all. */
  files: boolean;
  /** Files that tds itself has DuckDB write (the -o FILE.parquet being written): allowed even without `files`. */
  writablePaths?: readonly string[];
}

/** Settings given when the database is opened. */
export function openSettings(access: FileAccess): Record<string, string> {
  if (access.files) return {};
  return { autoinstall_known_extensions: 'false', autoload_known_extensions: 'false' };
}

/**
 * Statements run on the first connection before any other, in this order: the paths tds writes are
 * allowed before external access goes off (DuckDB takes no change of them after), and the lock comes last.
 */
export function lockdownStatements(access: FileAccess): string[] {
  if (access.files) return [];
  const paths = access.writablePaths ?? [];
  return [
    ...(paths.length > 0 ? [`SET allowed_paths = [${paths.map(quoteLiteral).join(', ')}]`] : []),
    'SET enable_external_access = false',
    'SET lock_configuration = true',
  ];
}

/** What a statement of a type whose job is files does, for the refusal; undefined for any other type. */
export function fileStatement(types: typeof StatementType, type: StatementType): string | undefined {
  const jobs: Partial<Record<number, string>> = {
    [types.COPY]: 'COPY reads and writes files',
    [types.EXPORT]: 'EXPORT DATABASE writes files',
    [types.ATTACH]: 'ATTACH opens a database file',
    [types.COPY_DATABASE]: 'COPY FROM DATABASE copies into another database',
  };
  return jobs[type];
}
