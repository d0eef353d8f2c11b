// query_sql's work: one statement in the sandbox of `tds sql`, within a time limit, its first rows and the
// full count, and DuckDB's refusals in query_sql's words. Loaded by the tool's first call.

import { UsageError, TdsError } from '../core/index.js';
import {
  FILES_HINT,
  interruptible,
  type Step,
  prepareOne,
  runStatement,
  type ResultRecord,
  type Database,
  type FileAccess,
  duckdbFailure,
  firstLine,
  joinHints,
  nameHint,
} from '../duckdb/index.js';

/** No file access: the sandbox of `tds sql` without --files (duckdb/file-access.ts). */
const NO_FILES: FileAccess = { files: false };

export interface QueryOptions {
  /** rows wanted: one more is kept, so that a caller can tell the result was cut */
  limit: number;
  /** the call's signal (cancelled, or the server ending) */
  signal: AbortSignal;
  timeoutMs: number;
  /** A statement did not stop when interrupted and still runs in `db`: it must not be used again. */
  onAbandoned(): void;
}

export interface QueryResult {
  columns: string[];
  /** the first `limit` rows and one more when there are more */
  rows: ResultRecord[];
  /** every row of the result */
  rowCount: number;
}

/**
 * One statement in the sandbox of `tds sql` (one statement, no file access; `db` is opened read-only
 * with access off), stopped by the call's signal or the time limit: its first rows, and how many it
 * has in all. A failure is a usage error with DuckDB's message and what to do (queryError).
 */
export async function runQuery(db: Database, sql: string, options: QueryOptions): Promise<QueryResult> {
  const signals = { call: options.signal, limit: AbortSignal.timeout(options.timeoutMs), timeoutMs: options.timeoutMs };
  const watched: Database = { ...db, abandon: () => (db.abandon(), options.onAbandoned()) };
  const step = interruptible(watched, AbortSignal.any([signals.call, signals.limit]));
  try {
    const statement = await prepareOne(db, sql, NO_FILES, step);
    const select = statement.statementType === db.duckdb.StatementType.SELECT;
    const outcome = await runStatement(db, statement, step);
    if (outcome.kind !== 'rows') return { columns: [], rows: [], rowCount: 0 };
    const rows: ResultRecord[] = [];
    let rowCount = 0;
    for await (const row of outcome.rows) {
      rowCount += 1;
      if (rows.length <= options.limit) rows.push(row);
      // past the rows returned, a query's rows are counted by DuckDB, not read
      if (select && rows.length > options.limit) return { columns: outcome.columns, rows, rowCount: await countRows(db, sql, step) };
    }
    return { columns: outcome.columns, rows, rowCount };
  } catch (error) {
    throw queryError(error, signals);
  }
}

/** The rows of a query, counted around it (DuckDB then reads none of its columns it does not need). */
async function countRows(db: Database, sql: string, step: Step): Promise<number> {
  // the query on lines of its own, so that a comment at its end does not swallow the parenthesis
  const query = sql.trim().replace(/;+\s*$/, '');
  const outcome = await runStatement(db, await prepareOne(db, `SELECT count(*) AS n FROM (\n${query}\n)`, NO_FILES, step), step);
  if (outcome.kind !== 'rows') return 0;
  for await (const row of outcome.rows) return Number(row.n);
  return 0;
}

const NO_FILES_HINT = "query_sql reads the mirror's tables and nothing else: no file, extension, setting or other database";

/** What to do about each of DuckDB's refusals, in the words of query_sql (tds sql's name flags that it has not). */
const HINTS: Partial<Record<ReturnType<typeof duckdbFailure>, string>> = {
  'read-only': 'query_sql only reads; the mirror changes through sync_tables',
  'file-access-off': NO_FILES_HINT,
  'settings-locked': NO_FILES_HINT,
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
  if (error instanceof TdsError) return error.hint === FILES_HINT ? new UsageError(error.message, { hint: NO_FILES_HINT }) : error;
  const hint = joinHints(nameHint(error), HINTS[duckdbFailure(error)]);
  return new UsageError(`SQL: ${firstLine(error)}`, hint ? { hint } : {});
}
