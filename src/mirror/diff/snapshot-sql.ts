import { quoteIdent, quoteLiteral } from '../../duckdb/sql-text.js';
import { REPLACED_AT_KEY, REPLACED_BY_KEY, SYNC_ID_KEY } from '../history/history-objects.js';

// A mirror table at a moment, as SQL over the table (T, the current versions) and its history (H, the
// versions replaced or deleted): the versions a sync had written and not yet replaced, or those
// updated by a moment of the service's clock and not yet replaced then (as the macros T_at_sync and
// T_at define it). `now` is the table as it is.

/** A moment of a table: after sync N (0: before its first sync), at a time of the service's clock, or now. */
export type Moment = { kind: 'sync'; n: number } | { kind: 'time'; at: string } | { kind: 'now' };

export interface HistoryTables {
  table: string;
  historyTable: string;
}

const syncId = quoteIdent(SYNC_ID_KEY);
const replacedBy = quoteIdent(REPLACED_BY_KEY);
const updatedAt = quoteIdent('_updatedAt');
const replacedAt = quoteIdent(REPLACED_AT_KEY);
const instant = (at: string): string => `${quoteLiteral(at)}::TIMESTAMPTZ`;

/** Which versions of T and of H a moment holds (SQL conditions; null: none of H). */
function membership(moment: Moment): { current: string; history: string | null } {
  switch (moment.kind) {
    case 'now':
      return { current: 'true', history: null };
    case 'sync':
      return { current: `${syncId} <= ${moment.n}`, history: `${syncId} <= ${moment.n} AND ${replacedBy} > ${moment.n}` };
    case 'time':
      return {
        current: `${updatedAt} <= ${instant(moment.at)}`,
        history: `${updatedAt} <= ${instant(moment.at)} AND ${replacedAt} > ${instant(moment.at)}`,
      };
  }
}

/** The table at `moment`: its columns `columns` (quoted keys), the rows restricted by `where` when given. */
export function snapshotSql(tables: HistoryTables, moment: Moment, columns: string, where?: string): string {
  const { current, history } = membership(moment);
  const and = where ? ` AND ${where}` : '';
  const fromCurrent = `SELECT ${columns} FROM ${quoteIdent(tables.table)} WHERE ${current}${and}`;
  return history === null
    ? fromCurrent
    : `${fromCurrent} UNION ALL SELECT ${columns} FROM ${quoteIdent(tables.historyTable)} WHERE ${history}${and}`;
}

/**
 * The IDs of rows whose version may differ between two moments (a superset; the comparison decides),
 * without reading more than a few columns: a version is in one snapshot and not the other only if it
 * began or ended between them. For moments of different kinds (a sync and a time), the versions of one
 * snapshot that the other has not. Null when the moments are the same (nothing can differ).
 */
export function candidateIdsSql(tables: HistoryTables, a: Moment, b: Moment): string | null {
  const T = quoteIdent(tables.table);
  const H = quoteIdent(tables.historyTable);
  const kindOf = (moment: Moment, other: Moment): 'sync' | 'time' =>
    moment.kind === 'now' ? (other.kind === 'time' ? 'time' : 'sync') : moment.kind;
  const kind = kindOf(a, b);
  if (kind !== kindOf(b, a)) {
    const identity = `"_id", ${updatedAt}, ${syncId}`;
    const sa = `(${snapshotSql(tables, a, identity)})`;
    const sb = `(${snapshotSql(tables, b, identity)})`;
    return `SELECT "_id" FROM ((${sa} EXCEPT ${sb}) UNION ALL (${sb} EXCEPT ${sa}))`;
  }
  const points = [a, b].map((moment) => (moment.kind === 'now' ? Infinity : moment.kind === 'sync' ? moment.n : Date.parse(moment.at)));
  const [lo, hi] = [Math.min(...points), Math.max(...points)];
  if (lo === hi) return null;
  const text = (point: number): string => (kind === 'sync' ? String(point) : instant(new Date(point).toISOString()));
  const between = (column: string): string =>
    hi === Infinity ? `${column} > ${text(lo)}` : `${column} > ${text(lo)} AND ${column} <= ${text(hi)}`;
  const [began, ended] = kind === 'sync' ? [syncId, replacedBy] : [updatedAt, replacedAt];
  return `SELECT "_id" FROM ${T} WHERE ${between(began)} UNION SELECT "_id" FROM ${H} WHERE (${between(began)}) OR (${between(ended)})`;
}
