import type { DuckDBConnection } from '@duckdb/node-api';
import { quoteIdent } from '../duckdb/sql-text.js';
import type { StoredField } from '../mirror/schema-drift.js';
import { causeSql, cutSql } from './error-cause.js';
import type { ErrorCause } from './stats-report.js';

/** Causes listed per column, most frequent first (`causes` says how many there are in all). */
export const MAX_CAUSES = 20;
/** Row IDs given per cause. */
export const IDS_PER_CAUSE = 3;
/** The longest example message, in characters; a longer one is cut there and ends with `…` (its row still counts). */
export const MAX_EXAMPLE_CHARS = 500;
/** The cause of a failed cell that has no error message. */
export const NO_MESSAGE = '(no message)';

export interface ErrorFigures {
  errors: ErrorCause[];
  causes: number;
}

/**
 * The failure causes of an action column: its cells with an error message or the state `failed`,
 * grouped by cause (each distinct message's cause is worked out once, then joined back to its rows).
 */
export async function errorFigures(connection: DuckDBConnection, table: string, field: StoredField): Promise<ErrorFigures> {
  if (!field.errorKey || !field.statusKey) return { errors: [], causes: 0 };
  const error = quoteIdent(field.errorKey);
  const status = quoteIdent(field.statusKey);
  const reader = await connection.runAndReadAll(`
    WITH cells AS (SELECT "_id" AS id, ${error} AS message FROM ${table} WHERE ${error} IS NOT NULL OR ${status} = 'failed'),
    messages AS (SELECT message, ${causeSql('message')} AS cause FROM (SELECT DISTINCT message FROM cells WHERE message IS NOT NULL)),
    rows AS (
      SELECT cells.id, cells.message, coalesce(nullif(messages.cause, ''), '${NO_MESSAGE}') AS cause
      FROM cells LEFT JOIN messages ON cells.message = messages.message
    )
    SELECT cause, count(*) AS n, ${cutSql('arg_min(message, id)', MAX_EXAMPLE_CHARS)} AS example, min(id, ${IDS_PER_CAUSE}) AS ids, count(*) OVER () AS causes
    FROM rows GROUP BY cause ORDER BY n DESC, cause LIMIT ${MAX_CAUSES}`);
  const rows = reader.getRowObjectsJS();
  return {
    causes: Number(rows[0]?.causes ?? 0),
    errors: rows.map((row) => ({
      cause: String(row.cause),
      count: Number(row.n),
      example: row.example === null || row.example === undefined ? null : String(row.example),
      ids: (row.ids as unknown[]).map(String),
    })),
  };
}
