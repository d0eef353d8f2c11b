import { TdsError, UsageError } from '../core/errors.js';
import { duckdbFailure, firstLine, joinHints, nameHint } from '../duckdb/errors.js';
import { FILES_HINT } from '../duckdb/one-statement.js';

/** How long query_sql's statement may run. */
export const QUERY_TIMEOUT_MS = 10_000;

const NO_FILES = "query_sql reads the mirror's tables and nothing else: no file, extension, setting or other database";

/** What to do about each of DuckDB's refusals, in the words of query_sql (tds sql's name flags that it has not). */
const HINTS: Partial<Record<ReturnType<typeof duckdbFailure>, string>> = {
  'read-only': 'query_sql only reads; the mirror changes through sync_tables',
  'file-access-off': NO_FILES,
  'settings-locked': NO_FILES,
  'no-such-table': "list_tables gives the mirror's table names (SHOW TABLES too); sync_tables mirrors a table",
};

/**
 * A failure of query_sql's statement as the agent should read it: DuckDB's message (a usage error, as
 * `tds sql` says it) with what to do; the time limit and a cancelled call as such.
 */
export function queryError(error: unknown, signals: { call: AbortSignal; limit: AbortSignal; timeoutMs: number }): unknown {
  if (signals.limit.aborted && !signals.call.aborted) {
    return new UsageError(`SQL: the statement ran longer than ${signals.timeoutMs / 1000} s and was stopped`, {
      hint: 'aggregate in SQL (GROUP BY, count(*), avg(…)) or narrow the statement (WHERE, LIMIT); describe_table and table_stats describe a table quickly',
    });
  }
  if (signals.call.aborted) return new TdsError('INTERRUPTED', 'the statement was stopped: the call was cancelled');
  // a statement whose job is files, refused by its type: query_sql has no --files to offer
  if (error instanceof TdsError) return error.hint === FILES_HINT ? new UsageError(error.message, { hint: NO_FILES }) : error;
  const hint = joinHints(nameHint(error), HINTS[duckdbFailure(error)]);
  return new UsageError(`SQL: ${firstLine(error)}`, hint ? { hint } : {});
}
