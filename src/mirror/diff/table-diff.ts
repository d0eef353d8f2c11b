import type { DuckDBConnection } from '@duckdb/node-api';
import { plainValue, quoteIdent, quoteLiteral } from '../../duckdb/index.js';
import { REPLACED_AT_KEY, REPLACED_BY_KEY, SYNC_ID_KEY } from '../history/history-objects.js';
// A table compared at two moments, in DuckDB: the versions one snapshot holds and the other does not are
// found from a few columns (onlyAtSql below), joined by `_id` a slice at a time, and only the rows that
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

/**
 * The bytes of records' JSON text that one part of records() holds at most: DuckDB keeps what it sorts in
 * memory, long strings at many times their size (2,000 rows of 2 KB in one sort ran a sync's 64 MB out),
 * and a part crosses to JavaScript as one string (2 MB parts grew the heap by 30 MB over 100,000 records).
 */
const PART_BYTES = 2 ** 19;
/**
 * The bytes of values (both sides, estimated) that one join of the two sides takes at most: the rows
 * that differ are joined a slice of their IDs at a time, so the join fits what a sync leaves it whatever
 * the number of rows that changed (100,000 rows of 1,000,000 in one join ran a diff's 128 MB out at times):
 * 64 MB, or beside a large table's index the index's headroom, 40 MB, less what the index has grown since.
 * A version wider than WIDE_BYTES counts WIDE_WEIGHT times: DuckDB writes the records' JSON a chunk of
 * 2,048 rows at a time, each piece of it a string of its own, so a chunk of wide rows takes many times
 * their size (8 MB of rows of 2 KB ran 64 MB out; 8 MB of rows of 250 bytes is a few chunks). Counted 8
 * times, 12,000 rows of 2 KB updated ran 36 MB out; 16 times, they fit 32 MB (diff-memory.test.ts).
 */
const SLICE_BYTES = 8 * 2 ** 20;
const WIDE_BYTES = 512;
const WIDE_WEIGHT = 16;

/** The diff of one mirror table between moments `since` and `until`, comparing `keys`. */
export class TableDiff {
  readonly keys: readonly string[];
  /** The versions in one snapshot and not the other (onlyAtSql), of the `since` side and the `until` side; null when nothing can differ. */
  private readonly sides: {
    before: (columns: string, where?: string) => string;
    after: (columns: string, where?: string) => string;
  } | null;

  constructor(
    private readonly connection: DuckDBConnection,
    tables: HistoryTables,
    private readonly columns: readonly DiffKey[],
    span: { since: Moment; until: Moment },
  ) {
    this.keys = columns.map((column) => column.key);
    const { since, until } = span;
    this.sides = sameMoment(since, until)
      ? null
      : {
          before: (columns, where) => onlyAtSql(tables, since, until, columns, where),
          after: (columns, where) => onlyAtSql(tables, until, since, columns, where),
        };
  }

  /**
   * The rows that differ, in the order of their latest `_updatedAt`, then `_id`. Only the versions that
   * one snapshot holds and the other does not are read (a version in both is the same row at both
   * moments); the two sides are joined by `_id` a slice of IDs at a time (SLICE_BYTES), each differing
   * row's record written as JSON text (values as an export writes them) into a temporary table; the
   * order is sorted from its narrow columns (the records' widths, kept as they were written: reading the
   * records again to measure them held them all in memory, 45 MB of them more than a sync leaves) and cut
   * into parts (PART_BYTES), and each part's records are read sorted: DuckDB sorts only a part at a time
   * (it keeps a sort's long strings in memory at many times their size).
   */
  async *records(): AsyncGenerator<DiffRecord> {
    if (this.sides === null) return;
    const suffix = Math.random().toString(36).slice(2, 10);
    const records = `tds_diff_records_${suffix}`;
    const order = `tds_diff_order_${suffix}`;
    try {
      await this.inSlices(records, (slice) => this.recordsSql(slice));
      const sorted = 'ORDER BY k, "_id"';
      await this.connection.run(
        `CREATE TEMP TABLE ${order} AS SELECT "_id", ` +
          `(floor(sum(width) OVER (${sorted} ROWS UNBOUNDED PRECEDING) / ${PART_BYTES}))::BIGINT AS part, ` +
          `row_number() OVER (${sorted}) AS place FROM temp.${records}`,
      );
      await this.connection.run(`UPDATE temp.${records} r SET part = o.part, place = o.place FROM temp.${order} o WHERE r."_id" = o."_id"`);
      const last = await this.connection.runAndReadAll(`SELECT coalesce(max(part), -1)::BIGINT AS n FROM temp.${order}`);
      const parts = Number(last.getRowObjectsJS()[0]?.n ?? -1);
      for (let part = 0; part <= parts; part += 1) {
        yield* this.partRecords(`SELECT string_agg(record, chr(10) ORDER BY place) AS records FROM temp.${records} WHERE part = ${part}`);
      }
    } finally {
      await this.connection.run(`DROP TABLE IF EXISTS temp.${order}`);
      await this.connection.run(`DROP TABLE IF EXISTS temp.${records}`);
    }
  }

  /**
   * Fills the temporary table `name` with what `sql` gives for each slice of the rows that may differ
   * (a range of `_id`, as SQL; none when one slice holds them all).
   */
  private async inSlices(name: string, sql: (slice: string | undefined) => string): Promise<void> {
    const starts = await this.sliceStarts();
    const slice = (i: number): string | undefined => {
      const from = i > 0 ? `"_id" >= ${quoteLiteral(starts[i]!)}` : undefined;
      const to = i + 1 < starts.length ? `"_id" < ${quoteLiteral(starts[i + 1]!)}` : undefined;
      return from && to ? `${from} AND ${to}` : (from ?? to);
    };
    await this.connection.run(`CREATE TEMP TABLE ${name} AS ${sql(slice(0))}`);
    for (let i = 1; i < starts.length; i += 1) await this.connection.run(`INSERT INTO temp.${name} ${sql(slice(i))}`);
  }

  /**
   * The first `_id` of each slice: the IDs of the versions of both sides in order, cut where their values
   * (estimated from their text's length) pass each SLICE_BYTES. A range of IDs, not a hash, so that each
   * slice's scans compare `_id` with constants (a hash of every ID costs more than the join it slices).
   */
  private async sliceStarts(): Promise<string[]> {
    const width = [
      '64',
      ...this.columns.map(({ sql, type }) => (isText(type) ? `coalesce(strlen(CAST(${sql} AS VARCHAR)), 0)` : '16')),
    ].join(' + ');
    const versions = `${this.sides!.before(`"_id", ${width} AS w`)} UNION ALL ${this.sides!.after(`"_id", ${width} AS w`)}`;
    const reader = await this.connection.runAndReadAll(
      `SELECT min("_id") AS first FROM (SELECT "_id", floor(sum(CASE WHEN w > ${WIDE_BYTES} THEN w * ${WIDE_WEIGHT} ELSE w END) OVER (ORDER BY "_id" ROWS UNBOUNDED PRECEDING) / ${SLICE_BYTES}) AS slice ` +
        `FROM (${versions})) GROUP BY slice ORDER BY slice`,
    );
    return reader.getRowObjectsJS().map((row) => String(row.first));
  }

  /**
   * The rows that differ among those of `slice` (SQL condition on `_id`): `_id`, `k` (the order's key),
   * `record`, the record as JSON text (`change`, `_id`, `before`, `after`), and `width`, its length.
   */
  private recordsSql(slice: string | undefined): string {
    const updatedAt = this.keys.indexOf('_updatedAt');
    const k = updatedAt < 0 ? 'NULL' : `coalesce(a${updatedAt}, b${updatedAt})`;
    // one concat of the pieces: a chain of || would make a string of each longer prefix
    const record =
      `concat('{"change":"', change, '","_id":', CAST(to_json("_id") AS VARCHAR), ` +
      `',"before":', coalesce(${this.sideJson('b')}, 'null'), ',"after":', coalesce(${this.sideJson('a')}, 'null'), '}')`;
    return (
      `SELECT "_id", k, record, strlen(record) AS width, NULL::BIGINT AS part, NULL::BIGINT AS place ` +
      `FROM (SELECT "_id", ${k} AS k, ${record} AS record FROM (${this.comparedSql(slice)}))`
    );
  }

  /**
   * The rows of the two sides that differ, joined by `_id`: `change`, `_id`, the values before (b0…) and
   * after (a0…) in the keys' order, and d0…, whether each key's value differs (every key of a row added or
   * deleted); with `changed`, the indexes of the keys whose values differ.
   */
  private comparedSql(slice: string | undefined, changed = false): string {
    const version = ['"_id"', ...this.columns.map(({ sql }, i) => `${sql} AS v${i}`)].join(', ');
    const differs = this.columns.map((_, i) => `b.v${i} IS DISTINCT FROM a.v${i}`);
    const one = 'b."_id" IS NULL OR a."_id" IS NULL';
    return (
      `SELECT CASE WHEN b."_id" IS NULL THEN 'added' WHEN a."_id" IS NULL THEN 'deleted' ELSE 'updated' END AS change, ` +
      `coalesce(a."_id", b."_id") AS "_id", b."_id" IS NOT NULL AS had, a."_id" IS NOT NULL AS has, ` +
      `${this.columns.map((_, i) => `b.v${i} AS b${i}, a.v${i} AS a${i}, (${one} OR ${differs[i]}) AS d${i}`).join(', ')}` +
      (changed
        ? `, list_filter([${differs.map((d, i) => `CASE WHEN ${d} THEN ${i} END`).join(', ')}], x -> x IS NOT NULL) AS changed`
        : '') +
      ` FROM (${this.sides!.before(version, slice)}) b FULL OUTER JOIN (${this.sides!.after(version, slice)}) a ON b."_id" = a."_id" ` +
      `WHERE ${one} OR ${differs.join(' OR ')}`
    );
  }

  /**
   * The records of one part, from a query of one string: the part's records as JSON text, a line each
   * (JSON text has no raw line break), null when the part has none. One string crosses from DuckDB, not
   * three a record; each record is parsed as it is taken.
   */
  private async *partRecords(query: string): AsyncGenerator<DiffRecord> {
    const reader = await this.connection.runAndReadAll(query);
    const text = reader.getRowsJS()[0]?.[0];
    if (typeof text !== 'string') return;
    for (const line of text.split('\n')) yield JSON.parse(line) as DiffRecord;
  }

  /** One side of a record as JSON text: every key for a row added or deleted, the keys that differ for one updated; NULL for the side a row lacks. */
  private sideJson(side: 'a' | 'b'): string {
    const entries = this.columns.map(({ key, type }, i) => {
      const value = `${side}${i}`;
      const json =
        type === 'TIMESTAMP WITH TIME ZONE'
          ? `'"' || strftime(${value} AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%S.%gZ') || '"'`
          : `CAST(to_json(${value}) AS VARCHAR)`;
      return `CASE WHEN d${i} THEN concat(${quoteLiteral(`${JSON.stringify(key)}:`)}, coalesce(${json}, 'null')) END`;
    });
    return `CASE WHEN ${side === 'b' ? 'had' : 'has'} THEN concat('{', concat_ws(',', ${entries.join(', ')}), '}') END`;
  }

  /** Counts per change, and per key of the updated rows its changes (the `top` most frequent transitions). */
  async summary(top = 5): Promise<{ counts: DiffCounts; keys: KeyChanges[] }> {
    const counts: DiffCounts = { added: 0, updated: 0, deleted: 0 };
    if (this.sides === null) return { counts, keys: [] };
    const pairs = `tds_diff_${Math.random().toString(36).slice(2, 10)}`;
    try {
      await this.inSlices(pairs, (slice) => this.comparedSql(slice, true));
      const byChange = await this.connection.runAndReadAll(`SELECT change, count(*)::BIGINT AS n FROM temp.${pairs} GROUP BY change`);
      for (const row of byChange.getRowObjectsJS()) counts[row.change as Change] = Number(row.n);
      const byKey = await this.connection.runAndReadAll(
        `SELECT k, count(*)::BIGINT AS n FROM (SELECT unnest(changed) AS k FROM temp.${pairs} WHERE change = 'updated') GROUP BY k ORDER BY k`,
      );
      const keys: KeyChanges[] = [];
      for (const row of byKey.getRowObjectsJS()) keys.push(await this.transitions(`temp.${pairs}`, Number(row.k), Number(row.n), top));
      return { counts, keys };
    } finally {
      await this.connection.run(`DROP TABLE IF EXISTS temp.${pairs}`);
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

/** A column whose values' width varies with their text (the rest are counted at a fixed width). */
const isText = (type: string): boolean => type === 'VARCHAR' || type === 'JSON' || type.endsWith('[]');

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

/**
 * The versions the table holds at `moment` and not at `other`, its columns `columns`, restricted by
 * `where` when given: the rows that may differ between the two, from their versions' narrow columns. A
 * version held at both moments is the row's only one at each, so the row is the same at both; the
 * comparison decides for the rest.
 */
export function onlyAtSql(tables: HistoryTables, moment: Moment, other: Moment, columns: string, where?: string): string {
  const at = membership(moment);
  const not = membership(other);
  const and = where ? ` AND ${where}` : '';
  const selects: string[] = [];
  if (not.current !== 'true')
    selects.push(`SELECT ${columns} FROM ${quoteIdent(tables.table)} WHERE (${at.current}) AND (${not.current}) IS NOT TRUE${and}`);
  if (at.history !== null) {
    const notThen = not.history === null ? '' : ` AND (${not.history}) IS NOT TRUE`;
    selects.push(`SELECT ${columns} FROM ${quoteIdent(tables.historyTable)} WHERE (${at.history})${notThen}${and}`);
  }
  return selects.length === 0 ? `SELECT ${columns} FROM ${quoteIdent(tables.table)} WHERE false` : selects.join(' UNION ALL ');
}

/** Whether two moments are the same (nothing can differ between them). */
function sameMoment(a: Moment, b: Moment): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === 'sync' && b.kind === 'sync') return a.n === b.n;
  if (a.kind === 'time' && b.kind === 'time') return Date.parse(a.at) === Date.parse(b.at);
  return true;
}
