import { interruptible, type Step } from '../duckdb/interruptible.js';
import type { Database } from '../duckdb/engine.js';
import type { FileAccess } from '../duckdb/file-access.js';
import { prepareOne } from '../duckdb/one-statement.js';
import { runStatement, type ResultRecord } from '../duckdb/run-statement.js';
import { queryError } from './query-errors.js';

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
