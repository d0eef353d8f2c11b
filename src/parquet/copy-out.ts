import { chmod, open, rename, rm } from 'node:fs/promises';
import { userFileMode, TdsError } from '../core/index.js';
import { quoteLiteral, messageOf, systemRefusal } from '../duckdb/index.js';
import { OutputWriteError } from '../output/index.js';

// The one way tds writes a Parquet file (exports, push's --wait settled -o, tds sql, the listings):
// DuckDB's COPY of a query into FILE.partial (typed, never a row at a time in JavaScript), with the
// mode of the user's umask and synced, then renamed to FILE. A failure leaves no FILE.partial.

export interface CopyOut {
  /** Runs a statement on the database the query reads (a caller may map DuckDB's errors, or interrupt it). */
  run: (sql: string) => Promise<unknown>;
  /** The rows, with the file's columns, in the file's order. */
  query: string;
  /** FILE. */
  path: string;
  /** Parquet's compression codec (DuckDB's default, snappy, when absent). */
  compression?: 'zstd';
  /** Rows a row group holds at most (DuckDB buffers a whole group in memory; its default: 122,880). */
  rowGroupSize?: number;
  /** The file's mode (default: what the user's umask gives, as for any -o FILE). */
  mode?: number;
}

/** Where DuckDB writes before the rename (a sandboxed database must allow this path). */
export function partialPath(path: string): string {
  return `${path}.partial`;
}

/** The rows of the query as a whole Parquet file at FILE.partial (left there: see copyOut). */
export async function copyToPartial({ run, query, path, compression, rowGroupSize, mode }: CopyOut): Promise<string> {
  const partial = partialPath(path);
  try {
    // written in place: no temporary file of DuckDB's beside it (a sandbox allows this one path)
    const codec = compression ? `, COMPRESSION ${compression}` : '';
    const groups = rowGroupSize === undefined ? '' : `, ROW_GROUP_SIZE ${Math.max(1, Math.floor(rowGroupSize))}`;
    await run(`COPY (${query}) TO ${quoteLiteral(partial)} (FORMAT parquet${codec}${groups}, USE_TMP_FILE false)`);
    // the user's umask, though DuckDB may be creating its own files privately meanwhile
    await chmod(partial, mode ?? userFileMode());
    const handle = await open(partial, 'r+');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch (error) {
    await rm(partial, { force: true });
    throw asWriteFailure(partial, error);
  }
  return partial;
}

/** The rows of the query as the Parquet file FILE: copyToPartial, then the rename. */
export async function copyOut(copy: CopyOut): Promise<void> {
  const partial = await copyToPartial(copy);
  try {
    await rename(partial, copy.path);
  } catch (error) {
    await rm(partial, { force: true });
    throw new OutputWriteError(copy.path, error);
  }
}

/**
 * DuckDB's failure to write `target` because the system refused (a full disk, a file-size limit, a
 * read-only file system) as an OutputWriteError naming it (exit 1); tds's own errors and every other
 * DuckDB error as they are.
 */
export function asWriteFailure(target: string, error: unknown): unknown {
  if (error instanceof TdsError) return error;
  const refusal = systemRefusal(error);
  if (!refusal) return error;
  const message = messageOf(error);
  // DuckDB ends its message with the system's words: `…: No space left on device`
  const reason = /: ([^:]*)$/.exec(message.split('\n')[0]!)?.[1] ?? message;
  return new OutputWriteError(target, Object.assign(new Error(reason.toLowerCase()), { code: refusal }));
}
