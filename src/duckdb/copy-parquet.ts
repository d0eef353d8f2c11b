import { chmod, rename, rm } from 'node:fs/promises';
import { userFileMode } from '../core/private-files.js';
import { quoteLiteral } from './sql-text.js';

/** Where copyToParquetFile has DuckDB write before the rename (a sandboxed database must allow this path). */
export function parquetPartialPath(path: string): string {
  return `${path}.partial`;
}

/**
 * Writes the rows of `query` as Parquet to `path`: DuckDB's COPY into `path`.partial (typed, never a row
 * at a time in JavaScript), renamed into place once complete; the partial file is removed on failure.
 * The file gets the mode of the user's umask (DuckDB may be creating files privately meanwhile).
 * `run` runs the COPY statement (a caller may map DuckDB's errors, or interrupt it).
 */
export async function copyToParquetFile(run: (sql: string) => Promise<unknown>, query: string, path: string): Promise<void> {
  const partial = parquetPartialPath(path);
  try {
    // written in place (no temporary file of DuckDB's beside it: a sandbox allows this one path)
    await run(`COPY (${query}) TO ${quoteLiteral(partial)} (FORMAT parquet, USE_TMP_FILE false)`);
    await chmod(partial, userFileMode());
    await rename(partial, path);
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  }
}
