import type { DuckDBConnection } from '@duckdb/node-api';
import { plainValue, quoteIdent, quoteLiteral } from '../../duckdb/index.js';
import { REPLACED_AT_KEY, REPLACED_BY_KEY, SYNC_ID_KEY } from '../history/history-objects.js';
// A table compared at two moments, in DuckDB: the rows whose versions may differ are found from a few
// columns (candidateIdsSql below), both snapshots of those rows joined by `_id`, and only the rows that
// differ come out, streamed a chunk at a time: memory stays flat whatever the table's size.

export type Change = 'added' | 'updated' | 'deleted';

/** One row that differs: `before`/`after` keyed like an export (for `updated`, only the keys that differ). */
export interface DiffRecord {
  change: Change;
  _id: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}

/** How often one key went from one value to another (the values as an export writes them). */
export interface Transition {
  before: unknown;
  after: unknown;
  count: number;
}

/** Per key of the updated rows: how many changed, and the most frequent transitions. */
export interface KeyChanges {
  key: string;
  changed: number;
  transitions: Transition[];
  /** Transitions not listed. */
  more: number;
}

export interface DiffCounts {
  added: number;
  updated: number;
  deleted: number;
}

/** A key the diff compares, with its column's SQL type and the SQL that reads a version's value. */
export interface DiffKey {
  key: string;
  type: string;
  sql: string;
}

/** The diff of one mirror table between moments `since` and `until`, comparing `keys`. */
/**
 * The bytes of values (both sides) that one sorted query of records() takes at most: DuckDB keeps what
 * it sorts in memory, long strings at many times their size (2,000 rows of 2 KB ran a sync's 64 MB out).
 */
const PART_BYTES = 2 * 2 ** 20;

export class TableDiff {
  readonly keys: readonly string[];
  private readonly sql: string | null;
  /** The IDs of the rows that may differ (candidateIdsSql). */
  private readonly candidates: string | null;

  constructor(
    private readonly connection: DuckDBConnection,
    private readonly tables: HistoryTables,
    private readonly columns: readonly DiffKey[],
    private readonly span: { since: Moment; until: Moment },
  ) {
    this.keys = columns.map((column) => column.key);
    this.candidates = candidateIdsSql(tables, span.since, span.until);
    this.sql = this.candidates === null ? null : pairsSql(tables, columns, span, this.candidates);
  }

  /**
   * The rows that differ, in the order of their latest `_updatedAt`, then `_id`. The versions of the
   * candidates at both moments are copied once into a temporary table, with the bytes of their values;
   * the order is sorted from narrow rows of it and cut into parts (PART_BYTES), and each part's versions
   * are compared, written as JSON text (values as an export writes them) and sorted: DuckDB sorts only a
   * part at a time (it keeps a sort's long strings in memory at many times their size), and the mirror
   * table and its history are read once (a statement a part, each reading them again, cost half as much
   * again over 100,000 rows of 1,000,000).
   */
  async *records(): AsyncGenerator<DiffRecord> {
    if (this.candidates === null) return;
    const suffix = Math.random().toString(36).slice(2, 10);
    const versions = `temp.tds_diff_versions_${suffix}`;
    const order = `temp.tds_diff_order_${suffix}`;
    try {
      await this.connection.run(`CREATE TEMP TABLE ${versions.slice('temp.'.length)} AS ${this.versionsSql()}`);
      await this.connection.run(`CREATE TEMP TABLE ${order.slice('temp.'.length)} AS ${this.orderSql(versions)}`);
      await this.connection.run(`UPDATE ${versions} v SET part = o.part, place = o.place FROM ${order} o WHERE v."_id" = o."_id"`);
      const last = await this.connection.runAndReadAll(`SELECT coalesce(max(part), -1)::BIGINT AS n FROM ${order}`);
      const parts = Number(last.getRowObjectsJS()[0]?.n ?? -1);
      for (let part = 0; part <= parts; part += 1) {
        const of = (side: 'a' | 'b'): string =>
          `SELECT * EXCLUDE (side, part, w) FROM ${versions} WHERE part = ${part} AND side = '${side}'`;
        yield* this.partRecords(
          `SELECT change, "_id", ${this.sideJson('b')} AS before, ${this.sideJson('a')} AS after ` +
            `FROM (${comparedSql(this.columns, of('b'), of('a'), 'place')}) ORDER BY place`,
        );
      }
    } finally {
      await this.connection.run(`DROP TABLE IF EXISTS ${order}`);
      await this.connection.run(`DROP TABLE IF EXISTS ${versions}`);
    }
  }

  /** The candidates' versions at both moments (`side` b and a), with the bytes of their values (`w`); `part` and `place` to come. */
  private versionsSql(): string {
    const bytes = ['64', ...this.columns.map((column) => `coalesce(strlen(CAST(${column.sql} AS VARCHAR)), 0)`)].join(' + ');
    const columns = `NULL::BIGINT AS part, NULL::BIGINT AS place, ${bytes} AS w, ${versionColumns(this.columns)}`;
    const only = '"_id" IN (SELECT "_id" FROM candidates)';
    const side = (which: 'a' | 'b', moment: Moment): string =>
      `SELECT '${which}' AS side, * FROM (${snapshotSql(this.tables, moment, columns, only)})`;
    return `WITH candidates AS (${this.candidates}) ${side('b', this.span.since)} UNION ALL ${side('a', this.span.until)}`;
  }

  /**
   * Each candidate's ID, part and place: the candidates in the records' order (place), cut where the
   * bytes of their values (both sides) pass each PART_BYTES. Only narrow rows are sorted.
   */
  private orderSql(versions: string): string {
    const updatedAt = this.keys.indexOf('_updatedAt');
    const key = updatedAt < 0 ? 'NULL' : `arg_max(v${updatedAt}, side = 'a')`;
    const order = 'ORDER BY k, "_id"';
    return (
      `SELECT "_id", (floor(sum(w) OVER (${order} ROWS UNBOUNDED PRECEDING) / ${PART_BYTES}))::BIGINT AS part, ` +
      `row_number() OVER (${order}) AS place FROM (SELECT "_id", ${key} AS k, sum(w) AS w FROM ${versions} GROUP BY "_id")`
    );
  }

  /** The records a query of `change`, `_id`, `before` and `after` (JSON text) gives, a chunk at a time. */
  private async *partRecords(query: string): AsyncGenerator<DiffRecord> {
    const result = await this.connection.stream(query);
    for await (const rows of result.yieldRowsJs()) {
      for (const [change, id, before, after] of rows) {
        yield {
          change: change as Change,
          _id: String(id),
          before: change === 'added' ? null : (JSON.parse(String(before)) as Record<string, unknown>),
          after: change === 'deleted' ? null : (JSON.parse(String(after)) as Record<string, unknown>),
        };
      }
    }
  }

  /** One side of a record as JSON text: every key for a row added or deleted, the keys that differ for one updated. */
  private sideJson(side: 'a' | 'b'): string {
    const entries = this.columns.map(({ key, type }, i) => {
      const value = `${side}${i}`;
      const json =
        type === 'TIMESTAMP WITH TIME ZONE'
          ? `'"' || strftime(${value} AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%S.%gZ') || '"'`
          : `CAST(to_json(${value}) AS VARCHAR)`;
      return `CASE WHEN change <> 'updated' OR list_contains(changed, ${i}) THEN ${quoteLiteral(`${JSON.stringify(key)}:`)} || coalesce(${json}, 'null') END`;
    });
    return `'{' || concat_ws(',', ${entries.join(', ')}) || '}'`;
  }

  /** Counts per change, and per key of the updated rows its changes (the `top` most frequent transitions). */
  async summary(top = 5): Promise<{ counts: DiffCounts; keys: KeyChanges[] }> {
    const counts: DiffCounts = { added: 0, updated: 0, deleted: 0 };
    if (this.sql === null) return { counts, keys: [] };
    const pairs = `temp.tds_diff_${Math.random().toString(36).slice(2, 10)}`;
    await this.connection.run(`CREATE TEMP TABLE ${pairs.slice('temp.'.length)} AS ${this.sql}`);
    try {
      const byChange = await this.connection.runAndReadAll(`SELECT change, count(*)::BIGINT AS n FROM ${pairs} GROUP BY change`);
      for (const row of byChange.getRowObjectsJS()) counts[row.change as Change] = Number(row.n);
      const byKey = await this.connection.runAndReadAll(
        `SELECT k, count(*)::BIGINT AS n FROM (SELECT unnest(changed) AS k FROM ${pairs} WHERE change = 'updated') GROUP BY k ORDER BY k`,
      );
      const keys: KeyChanges[] = [];
      for (const row of byKey.getRowObjectsJS()) keys.push(await this.transitions(pairs, Number(row.k), Number(row.n), top));
      return { counts, keys };
    } finally {
      await this.connection.run(`DROP TABLE IF EXISTS ${pairs}`);
    }
  }

  /** One key's most frequent transitions among the updated rows, its values as an export writes them. */
  private async transitions(pairs: string, k: number, changed: number, top: number): Promise<KeyChanges> {
    const where = `change = 'updated' AND list_contains(changed, ${k})`;
    const kinds = await this.connection.runAndReadAll(
      `SELECT count(*)::BIGINT AS n FROM (SELECT DISTINCT b${k}, a${k} FROM ${pairs} WHERE ${where})`,
    );
    const result = await this.connection.runAndReadAll(
      `SELECT b${k} AS v0, a${k} AS v1, count(*)::BIGINT AS n FROM ${pairs} WHERE ${where} GROUP BY ALL ORDER BY n DESC, v0, v1 LIMIT ${top}`,
    );
    const types = result.columnTypes();
    const transitions = result.getRowsJS().map((row) => ({
      before: plainValue(row[0], types[0]!),
      after: plainValue(row[1], types[1]!),
      count: Number(row[2]),
    }));
    return { key: this.keys[k]!, changed, transitions, more: Number(kinds.getRowObjectsJS()[0]!.n) - transitions.length };
  }
}

/**
 * The rows that differ between two moments: `change`, `_id`, the values before (b0…) and after (a0…)
 * in the keys' order, and `changed`, the indexes of the keys whose values differ; among the rows whose
 * IDs `candidates` (SQL) gives.
 */
function pairsSql(
  tables: HistoryTables,
  keys: readonly DiffKey[],
  { since, until }: { since: Moment; until: Moment },
  candidates: string,
): string {
  const columns = versionColumns(keys);
  const only = '"_id" IN (SELECT "_id" FROM candidates)';
  return `WITH candidates AS (${candidates}) ${comparedSql(keys, snapshotSql(tables, since, columns, only), snapshotSql(tables, until, columns, only))}`;
}

/** A version's `_id` and values (v0…, in the keys' order). */
const versionColumns = (keys: readonly DiffKey[]): string => ['"_id"', ...keys.map((key, i) => `${key.sql} AS v${i}`)].join(', ');

/** The rows of `before` and `after` (queries of `_id` and v0…) that differ, as pairsSql says; `carried`: a column of both, kept. */
function comparedSql(keys: readonly DiffKey[], before: string, after: string, carried?: string): string {
  const differs = keys.map((_, i) => `b.v${i} IS DISTINCT FROM a.v${i}`);
  return (
    `SELECT CASE WHEN b."_id" IS NULL THEN 'added' WHEN a."_id" IS NULL THEN 'deleted' ELSE 'updated' END AS change, ` +
    `coalesce(a."_id", b."_id") AS "_id", ${keys.map((_, i) => `b.v${i} AS b${i}`).join(', ')}, ${keys.map((_, i) => `a.v${i} AS a${i}`).join(', ')}, ` +
    `list_filter([${keys.map((_, i) => `CASE WHEN ${differs[i]} THEN ${i} END`).join(', ')}], x -> x IS NOT NULL) AS changed` +
    (carried ? `, coalesce(a.${carried}, b.${carried}) AS ${carried}` : '') +
    ` FROM (${before}) b FULL OUTER JOIN (${after}) a ON b."_id" = a."_id" ` +
    `WHERE b."_id" IS NULL OR a."_id" IS NULL OR ${differs.join(' OR ')}`
  );
}

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
