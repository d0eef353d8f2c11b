// One statement of a user's SQL (tds sql, query_sql, the checks): DuckDB calls that an interrupt stops,
// exactly one statement checked against the file sandbox, run with its rows, its values made plain.

import type { Database } from './engine.js';
import type { DuckDBPreparedStatement, DuckDBResult, DuckDBType } from '@duckdb/node-api';
import { UsageError } from '../core/index.js';
import { duckdbFailure, FILES_HINT } from './errors.js';
import { fileStatement, type FileAccess } from './file-access.js';

/**
 * How long a DuckDB call gets to stop once interrupted. Execution stops at once (DuckDB checks between
 * data chunks), planning within a second or two; the parser never checks, and a pathological
 * statement can keep it busy for minutes: such a call is given up (see Database.abandon).
 */
const STOP_GRACE_MS = 2000;
const INTERRUPT_EVERY_MS = 50;

type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown };

const outcomeOf = <T>(promise: Promise<T>): Promise<Outcome<T>> =>
  promise.then(
    (value) => ({ ok: true, value }),
    (error: unknown) => ({ ok: false, error }),
  );

/** A DuckDB call that `signal` stops: the way every call of a statement is made (see interruptible). */
export type Step = <T>(call: () => Promise<T>) => Promise<T>;

/**
 * Makes each DuckDB call of `db` stoppable by `signal` (Ctrl-C, a time limit): when it aborts, DuckDB is
 * interrupted and the call fails with the signal's reason, whether DuckDB then fails it, ends it early
 * (a result stream just ends) or, past the grace, has not returned at all (the call is abandoned).
 */
export function interruptible(db: Database, signal: AbortSignal): Step {
  return async <T>(call: () => Promise<T>): Promise<T> => {
    signal.throwIfAborted();
    const running = outcomeOf(call());
    let onAbort = (): void => undefined;
    const aborted = new Promise<'aborted'>((resolve) => {
      onAbort = () => resolve('aborted');
      signal.addEventListener('abort', onAbort, { once: true });
    });
    const first = await Promise.race([running, aborted]);
    signal.removeEventListener('abort', onAbort);
    if (first !== 'aborted' && !signal.aborted) {
      if (first.ok) return first.value;
      throw first.error;
    }
    if (first === 'aborted') {
      db.interrupt();
      // again and again: an interrupt that comes before DuckDB has begun the statement is forgotten when it begins
      const again = setInterval(() => db.interrupt(), INTERRUPT_EVERY_MS);
      let timer: NodeJS.Timeout | undefined;
      const grace = new Promise<'stuck'>((resolve) => (timer = setTimeout(() => resolve('stuck'), STOP_GRACE_MS)));
      const outcome = await Promise.race([running, grace]);
      clearInterval(again);
      clearTimeout(timer);
      if (outcome === 'stuck') db.abandon();
    }
    throw signal.reason;
  };
}

/**
 * The one statement `sql` holds, prepared: none or several are usage errors, and without file access a
 * statement whose job is files is refused before it runs (see file-access.ts). Syntax and binding
 * errors are DuckDB's, thrown as they are.
 */
export async function prepareOne(db: Database, sql: string, access: FileAccess, step: Step): Promise<DuckDBPreparedStatement> {
  const extracted = await step(() => db.connection.extractStatements(sql)).catch((error: unknown) => {
    throw duckdbFailure(error) === 'no-statement' ? noStatement() : error;
  });
  if (extracted.count === 0) throw noStatement();
  if (extracted.count > 1)
    throw new UsageError(`tds sql runs one statement; this text holds ${extracted.count}`, { hint: 'run them one at a time' });
  const statement = await step(() => extracted.prepare(0));
  const job = access.files ? undefined : fileStatement(db.duckdb.StatementType, statement.statementType);
  if (job) {
    statement.destroySync();
    throw new UsageError(`SQL: ${job}, and a statement has no file access without --files`, { hint: FILES_HINT });
  }
  return statement;
}

function noStatement(): UsageError {
  return new UsageError('no SQL statement given', { hint: 'e.g. tds sql "SELECT * FROM leads LIMIT 5"' });
}

/** A record of a query's result: its columns by name (duplicates made unique), plain JSON values. */
export type ResultRecord = Record<string, unknown>;

export type StatementOutcome =
  /** A query: its columns and its rows, read a data chunk at a time as they are iterated (once). */
  | { kind: 'rows'; columns: string[]; rows: AsyncIterable<ResultRecord> }
  /** INSERT, UPDATE, DELETE: how many rows they changed. */
  | { kind: 'changed'; count: number }
  /** Anything else (CREATE VIEW, CHECKPOINT …). */
  | { kind: 'done' };

/**
 * Runs a prepared statement through `step`, so that its signal stops it at any point: starting it, or
 * between any two data chunks of its rows. A stopped statement's rows end in an error, never early:
 * DuckDB ends an interrupted result stream as if it were complete.
 */
export async function runStatement(db: Database, statement: DuckDBPreparedStatement, step: Step): Promise<StatementOutcome> {
  const result = await step(() => statement.stream());
  const { ResultReturnType } = db.duckdb;
  if (result.returnType === ResultReturnType.CHANGED_ROWS) return { kind: 'changed', count: Number(result.rowsChanged) };
  if (result.returnType !== ResultReturnType.QUERY_RESULT) return { kind: 'done' };
  const columns = result.deduplicatedColumnNames();
  return { kind: 'rows', columns, rows: records(db, result, columns, step) };
}

async function* records(db: Database, result: DuckDBResult, columns: string[], step: Step): AsyncGenerator<ResultRecord> {
  const types = result.columnTypes();
  for (;;) {
    const chunk = await step(() => result.fetchChunk());
    if (!chunk || chunk.rowCount === 0) return;
    for (const row of chunk.convertRows(db.duckdb.JSDuckDBValueConverter)) {
      yield Object.fromEntries(columns.map((name, i) => [name, plainValue(row[i], types[i]!)]));
    }
  }
}

/**
 * A DuckDB result value (as @duckdb/node-api's JS conversion gives it) as a plain JSON value, the
 * way exports write records: instants as ISO 8601 text, dates as YYYY-MM-DD, JSON columns as the
 * JSON value they hold, integers beyond 2^53 as their exact digits (text), bytes as base64.
 */
export function plainValue(value: unknown, type: DuckDBType): unknown {
  if (value === null || value === undefined) return null;
  if (type.alias === 'JSON' && typeof value === 'string') return parseJson(value);
  if (value instanceof Date) return type.toString() === 'DATE' ? value.toISOString().slice(0, 10) : value.toISOString();
  return plain(value);
}

function plain(value: unknown): unknown {
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  if (value instanceof Date) return value.toISOString();
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (Array.isArray(value)) return value.map(plain);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, plain(inner)]));
  return value;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
