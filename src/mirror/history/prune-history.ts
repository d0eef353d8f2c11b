import type { DuckDBConnection } from '@duckdb/node-api';
import { quoteIdent, quoteLiteral } from '../../duckdb/sql-text.js';
import type { TableState } from '../table-state.js';
import { createMacros, hasTable, REPLACED_AT_KEY, REPLACED_BY_KEY } from './history-objects.js';
import { versionColumns } from './retyped-columns.js';

// `--prune-history`, and what it leaves the history able to answer for. A pruned version was alive from
// its `_updatedAt` to its `_replacedAt`, and in the syncs before its `_replacedBy`: the table at a
// moment before the latest such end, or after a sync before it, is no longer known. _tds_pruned keeps,
// per table, the earliest moment and sync the history still answers for exactly; `tds diff`, MCP's
// diff_table and the macros T_at_sync and T_at refuse to answer for one before them.

const PRUNED_TABLE = `CREATE TABLE IF NOT EXISTS _tds_pruned (
    table_id VARCHAR PRIMARY KEY,
    known_from TIMESTAMPTZ NOT NULL,
    known_from_sync BIGINT NOT NULL
  )`;

/**
 * Drops the versions of the table's history replaced more than `olderThanMs` before `now` (the
 * service's clock, as `_replacedAt` is), but none that `--changes` has yet to deliver; notes the
 * horizon and makes the macros again (they refuse a moment before it). Returns how many were dropped.
 */
export async function pruneHistory(connection: DuckDBConnection, state: TableState, olderThanMs: number, now: string): Promise<number> {
  const cutoff = new Date(Date.parse(now) - olderThanMs).toISOString();
  const history = quoteIdent(state.historyTable!);
  const undelivered = (await hasTable(connection, '_tds_changes'))
    ? ` AND ${quoteIdent(REPLACED_BY_KEY)} <= coalesce((SELECT delivered_sync FROM _tds_changes WHERE table_id = ${quoteLiteral(state.tableId)}), ${quoteIdent(REPLACED_BY_KEY)})`
    : '';
  const which = `${quoteIdent(REPLACED_AT_KEY)} < ${quoteLiteral(cutoff)}::TIMESTAMPTZ${undelivered}`;
  await connection.run('BEGIN TRANSACTION');
  try {
    const reader = await connection.runAndReadAll(
      `SELECT count(*)::BIGINT AS n, max(${quoteIdent(REPLACED_AT_KEY)}) AS known_from, max(${quoteIdent(REPLACED_BY_KEY)}) AS known_from_sync FROM ${history} WHERE ${which}`,
    );
    const found = reader.getRowObjectsJS()[0]!;
    const pruned = Number(found.n);
    if (pruned > 0) {
      await connection.run(`DELETE FROM ${history} WHERE ${which}`);
      await connection.run(PRUNED_TABLE);
      await connection.run(
        'INSERT INTO _tds_pruned VALUES ($1, $2::TIMESTAMPTZ, $3) ON CONFLICT (table_id) DO UPDATE SET ' +
          'known_from = greatest(known_from, excluded.known_from), known_from_sync = greatest(known_from_sync, excluded.known_from_sync)',
        [state.tableId, new Date(found.known_from as Date).toISOString(), Number(found.known_from_sync)],
      );
      const names = { historyTable: state.historyTable!, atSyncMacro: state.atSyncMacro!, atMacro: state.atMacro! };
      await createMacros(connection, state.mirrorTable, names, await versionColumns(connection, state.mirrorTable));
    }
    await connection.run('COMMIT');
    return pruned;
  } catch (error) {
    await connection.run('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
