import { TdsError, UsageError } from '../core/errors.js';
import { duckdbFailure, firstLine, joinHints, nameHint } from '../duckdb/errors.js';
import { FILES_HINT } from '../duckdb/statement.js';

/**
 * DuckDB's errors in a statement (syntax, an unknown table, a write on a read-only mirror, a file it
 * may not reach) are the user's SQL: a usage error (exit 2) with DuckDB's message and what to do.
 * tds's own errors (an interrupt) pass as they are.
 */
export function sqlError(error: unknown, context: { output?: string } = {}): unknown {
  if (error instanceof TdsError || (error instanceof Error && error.name === 'TimeoutError')) return error;
  const hint = joinHints(nameHint(error), HINTS[duckdbFailure(error)]);
  const folderHint = duckdbFailure(error) === 'cannot-open-file' && context.output;
  return new UsageError(`SQL: ${firstLine(error)}`, {
    ...(hint ? { hint } : folderHint ? { hint: 'check that the folder of -o FILE exists and can be written' } : {}),
  });
}

const HINTS: Partial<Record<ReturnType<typeof duckdbFailure>, string>> = {
  'read-only': 'the mirror is opened read-only: add --write to change it',
  'file-access-off': FILES_HINT,
  'settings-locked': "tds sql fixes DuckDB's settings; --files gives the statement your own file access",
  'no-such-table': 'SHOW TABLES lists the mirror tables; _tds_tables says which is which',
};
