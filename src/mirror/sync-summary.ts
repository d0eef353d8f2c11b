import { TdsError } from '../core/errors.js';
import type { TableSyncResult } from './sync-table.js';

/** What `tds sync --json` prints: the mirror and a row per table. */
export interface SyncSummary {
  db: string;
  tables: Array<Omit<TableSyncResult, 'startedAt' | 'seconds'> & { seconds: number }>;
}

export function syncSummary(db: string, results: readonly TableSyncResult[]): SyncSummary {
  return {
    db,
    tables: results.map(({ startedAt: _startedAt, seconds, ...rest }) => ({ ...rest, seconds: Math.round(seconds * 100) / 100 })),
  };
}

const n = (value: number): string => value.toLocaleString('en-US');

/** One line per table on stderr: `leads  incremental  2 requests  120 read  +3 ~117 -0  1.4 s`. */
export function formatSyncSummary(summary: SyncSummary): string {
  if (summary.tables.length === 0) return `nothing to sync in ${summary.db}\n`;
  const rows = summary.tables.map((table) => [
    table.mirrorTable,
    `${table.mode}${table.complete ? '' : ' (interrupted)'}`,
    `${n(table.requests)} ${table.requests === 1 ? 'request' : 'requests'}`,
    `${n(table.rowsRead)} read`,
    `${n(table.inserted)} inserted`,
    `${n(table.updated)} updated`,
    `${n(table.deleted)} deleted`,
    ...(table.unfit > 0 ? [`${n(table.unfit)} values that did not fit (NULL)`] : []),
    ...(table.pruned !== null ? [`${n(table.pruned)} old ${table.pruned === 1 ? 'version' : 'versions'} pruned`] : []),
    `${table.seconds.toFixed(1)} s`,
    table.verifiedAt === null ? 'not verified yet' : `verified ${table.verifiedAt.replace(/\.\d+Z$/, 'Z')}`,
  ]);
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]?.length ?? 0)));
  const lines = rows.map(
    (row) =>
      `  ${row
        .map((cell, column) => cell.padEnd(widths[column]!))
        .join('  ')
        .trimEnd()}`,
  );
  return `synced ${summary.db}\n${lines.join('\n')}\n`;
}

/**
 * Ctrl-C during a sync, as an export's says it: what the mirror keeps (the tables done, the rows of the
 * interrupted pass saved so far) and that the next `tds sync` continues from there.
 */
export function interruptedSync(where: { db: string; table: string; savedRows: number; tablesDone: number }): TdsError {
  const done = where.tablesDone > 0 ? `; ${n(where.tablesDone)} ${where.tablesDone === 1 ? 'table' : 'tables'} synced before it` : '';
  return new TdsError(
    'INTERRUPTED',
    `the sync of ${where.table} stopped: ${n(where.savedRows)} ${where.savedRows === 1 ? 'row' : 'rows'} of it kept in ${where.db}${done}`,
    { hint: 'the next `tds sync` continues where this one stopped (what is saved is not read again)' },
  );
}
