import { rename, rm } from 'node:fs/promises';
import { quoteLiteral } from './sql-text.js';

/**
 * Writes the rows of `query` as Parquet to `path`: DuckDB's COPY into `path`.partial (typed, never a row
 * at a time in JavaScript), renamed into place once complete; the partial file is removed on failure.
 * `run` runs the COPY statement (a caller may map DuckDB's errors).
 */
export async function copyToParquetFile(run: (sql: string) => Promise<unknown>, query: string, path: string): Promise<void> {
  const partial = `${path}.partial`;
  try {
    await run(`COPY (${query}) TO ${quoteLiteral(partial)} (FORMAT parquet)`);
    await rename(partial, path);
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  }
}
