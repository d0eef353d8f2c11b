import { TdsError } from '../core/errors.js';
import { messageOf, systemRefusal } from '../duckdb/errors.js';
import { OutputWriteError } from '../output/write-error.js';

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
