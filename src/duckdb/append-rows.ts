import type { DuckDBType } from '@duckdb/node-api';
import type { SqlType, TypedValue } from '../records/typed-values.js';
import type { Database } from './engine.js';

// Rows of typed values (records/typed-plan.ts) appended to a table a data chunk at a time: many times
// faster than a value at a time. JSON and TIMESTAMPTZ travel as text, cast by the statement that moves
// the rows on (the mirror and the Parquet staging file append each row as one JSON text: json-rows.ts).

/** DuckDB's vector size: a data chunk holds at most this many rows. */
const CHUNK_ROWS = 2048;

function stagedType(duckdb: Database['duckdb'], type: SqlType): DuckDBType {
  switch (type) {
    case 'DOUBLE':
      return duckdb.DOUBLE;
    case 'BOOLEAN':
      return duckdb.BOOLEAN;
    case 'VARCHAR[]':
      return duckdb.LIST(duckdb.VARCHAR);
    default:
      return duckdb.VARCHAR;
  }
}

function engineValue(duckdb: Database['duckdb'], type: SqlType, value: TypedValue): import('@duckdb/node-api').DuckDBValue {
  if (value === null) return null;
  if (type === 'VARCHAR[]') return duckdb.listValue([...(value as readonly string[])]);
  return value as string | number | boolean;
}

/** Rows appended to one table through one appender, kept open across calls (see openRowAppender). */
export interface RowAppender {
  /** Rows of typed values, in the column order given at opening; any number, sent a data chunk at a time. */
  append(rows: readonly TypedValue[][]): void;
  /** Hands the rows appended so far to the table (within the connection's transaction, if one is open). */
  flush(): void;
  /** Flushes and closes. */
  close(): void;
}

/**
 * appendRows for a stream of rows: one appender (on `connection`, the database's own by default) and one
 * data chunk, reused for every chunk until close(), so that many small batches (a page of rows each) leave
 * no native chunk memory behind for the garbage collector. The table's columns are the staged types.
 */
export async function openRowAppender(
  db: Pick<Database, 'duckdb' | 'connection'>,
  table: { name: string; catalog?: string },
  types: readonly SqlType[],
): Promise<RowAppender> {
  const { duckdb } = db;
  const appender = await db.connection.createAppender(table.name, 'main', table.catalog ?? null);
  const chunk = duckdb.DuckDBDataChunk.create(types.map((type) => stagedType(duckdb, type)));
  return {
    append(rows) {
      for (let start = 0; start < rows.length; start += CHUNK_ROWS) {
        const part = rows.length <= CHUNK_ROWS ? rows : rows.slice(start, start + CHUNK_ROWS);
        chunk.reset();
        chunk.setColumns(types.map((type, column) => part.map((row) => engineValue(duckdb, type, row[column] ?? null))));
        appender.appendDataChunk(chunk);
      }
    },
    flush() {
      appender.flushSync();
    },
    close() {
      appender.closeSync();
    },
  };
}
