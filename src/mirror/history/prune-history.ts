import type { DuckDBConnection } from '@duckdb/node-api';
import { quoteIdent } from '../../duckdb/sql-text.js';
import { REPLACED_AT_KEY } from './history-objects.js';

/**
 * `--prune-history`: drops the versions of a history table replaced more than `olderThanMs` before
 * `now` (the service's clock, as `_replacedAt` is); returns how many.
 */
export async function pruneHistory(connection: DuckDBConnection, historyTable: string, olderThanMs: number, now: string): Promise<number> {
  const cutoff = new Date(Date.parse(now) - olderThanMs).toISOString();
  const reader = await connection.runAndReadAll(
    `DELETE FROM ${quoteIdent(historyTable)} WHERE ${quoteIdent(REPLACED_AT_KEY)} < $1::TIMESTAMPTZ`,
    [cutoff],
  );
  return Number(reader.getRows()[0]?.[0] ?? 0);
}
