import type { DuckDBPreparedStatement, DuckDBResult } from '@duckdb/node-api';
import type { Database } from './engine.js';
import type { Step } from './interruptible.js';
import { plainValue } from './result-values.js';

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
