import type { DuckDBConnection } from '@duckdb/node-api';
import { quoteIdent, quoteLiteral } from '../duckdb/index.js';
import { TRUNCATED_KEY, type TypedColumn } from '../records/index.js';
import { CHANGE_KEY, REPLACED_AT_KEY, REPLACED_BY_KEY, SYNC_ID_KEY, tableColumns } from './history/history-objects.js';

/** What one group of pages changed. */
export interface GroupCounts {
  inserted: number;
  updated: number;
}

/** Where a pass writes: the mirror table, its history table, and the sync that writes (each version's `_syncId`). */
export interface WriteTarget {
  table: string;
  historyTable: string;
  syncId: number;
}

/** A column of the mirror table as DuckDB has it. */
export interface TableColumn {
  key: string;
  type: string;
}

export const readTableColumns = tableColumns;

/**
 * The SQL of one group's write, within its transaction (mirror-writer.ts). The group's rows (typed,
 * one per `_id`, as n0, n1, … in the plan's order) are matched with the rows the mirror holds in a
 * temporary table, then:
 *
 * - a version the mirror holds with another `_updatedAt` moves into the history table (replaced by this
 *   sync, at the new version's `_updatedAt`), and the new version takes its place with this `_syncId`;
 * - a new row is inserted with this `_syncId`;
 * - a row read again unchanged is not written (no version, no byte), unless `rewrite` (a full pass) and
 *   its values differ (new labels or types): then it is written again as the same version, its
 *   `_syncId` kept;
 * - a row written again keeps the values of the columns no field fills any more (a removed field's),
 *   and `_truncated` keeps naming those of them that were cut (the row read names only its fields').
 *
 * A row written again is updated in place, unless a list column of it changed (DuckDB moves such a row:
 * it is deleted and inserted again). The match also asks for the same `_createdAt` (which a row never
 * changes): DuckDB then reads only the parts of the table whose creation times the group's span (a pass
 * reads rows newest first, and the table holds them in that order), not the whole table. A row whose
 * creation time did change anyway would be taken for a new one and refused by the primary key:
 * `byCreation` false matches by `_id` alone.
 */
export class GroupUpsert {
  private readonly matched = `tds_matched_${Math.random().toString(36).slice(2, 10)}`;
  /** The plan's keys (what a row read fills), and which of them are lists. */
  private readonly planKeys: string[];
  private readonly listKeys: Set<string>;
  /** The table's columns (their order), and those no field fills (kept). */
  private readonly allKeys: string[];
  private readonly keptKeys: string[];
  private readonly newUpdatedAt: string;
  private readonly newCreatedAt: string;

  constructor(
    private readonly target: WriteTarget,
    columns: readonly TypedColumn[],
    table: readonly TableColumn[],
  ) {
    this.planKeys = columns.map((column) => column.key);
    this.listKeys = new Set(columns.filter((column) => column.type.endsWith('[]')).map((column) => column.key));
    this.allKeys = table.map((column) => column.key);
    const written = new Set([...this.planKeys, SYNC_ID_KEY]);
    this.keptKeys = this.allKeys.filter((key) => !written.has(key));
    this.newUpdatedAt = `n${this.planKeys.indexOf('_updatedAt')}`;
    this.newCreatedAt = `n${this.planKeys.indexOf('_createdAt')}`;
  }

  /** Every row of the group inserted as new (the table holds only this pass's rows). */
  insertNewSql(typedRows: string): string {
    const list = [...this.planKeys, SYNC_ID_KEY].map(quoteIdent).join(', ');
    const values = this.planKeys.map((_, i) => `n${i}`).join(', ');
    return `INSERT INTO ${quoteIdent(this.target.table)} (${list}) SELECT ${values}, ${this.target.syncId} FROM (${typedRows})`;
  }

  /** `beforeIndex`: run before the first statement that changes the table's index (a row inserted, or moved). */
  async write(
    connection: DuckDBConnection,
    { typedRows, rewrite, byCreation }: { typedRows: string; rewrite: boolean; byCreation: boolean },
    beforeIndex: () => Promise<void>,
  ): Promise<GroupCounts> {
    const matched = `temp.${this.matched}`;
    await connection.run(`DROP TABLE IF EXISTS ${matched}`);
    await connection.run(`CREATE TEMP TABLE ${this.matched} AS ${this.matchSql(typedRows, byCreation)}`);
    try {
      // which rows are written again (conditions on the matched table; `m.` when it is joined)
      const again = (m: string): string => (rewrite ? `(${m}changed OR NOT ${m}same)` : `${m}changed`);
      const inPlace = (m: string): string => `${m}known AND ${again(m)} AND ${m}lists_same`;
      const moved = (m: string): string => `${m}known AND ${again(m)} AND NOT ${m}lists_same`;
      const reader = await connection.runAndReadAll(
        `SELECT count(*) FILTER (WHERE NOT known)::INTEGER AS inserted, count(*) FILTER (WHERE changed)::INTEGER AS updated, ` +
          `count(*) FILTER (WHERE ${inPlace('')})::INTEGER AS in_place, count(*) FILTER (WHERE ${moved('')})::INTEGER AS moved FROM ${matched}`,
      );
      const counts = reader.getRowObjectsJS()[0] ?? {};
      const inserted = Number(counts.inserted ?? 0);
      const updated = Number(counts.updated ?? 0);
      if (updated > 0) await this.moveReplaced(connection, matched);
      if (inserted > 0 || Number(counts.moved ?? 0) > 0) await beforeIndex();
      if (Number(counts.in_place ?? 0) > 0) await this.updateInPlace(connection, matched, inPlace('m.'));
      if (Number(counts.moved ?? 0) > 0) {
        await connection.run(
          `DELETE FROM ${quoteIdent(this.target.table)} WHERE rowid IN (SELECT o_row FROM ${matched} WHERE ${moved('')})`,
        );
        await this.insert(connection, matched, moved(''));
      }
      if (inserted > 0) await this.insert(connection, matched, 'NOT known');
      return { inserted, updated };
    } finally {
      await connection.run(`DROP TABLE IF EXISTS ${matched}`);
    }
  }

  /**
   * The group's rows with what the mirror holds of each: its row, `_syncId` and kept values; whether it
   * is known, changed (another `_updatedAt`), the same in every value, the same in its list columns.
   */
  private matchSql(typedRows: string, byCreation: boolean): string {
    const truncated = `n${this.planKeys.indexOf(TRUNCATED_KEY)}`;
    const merged = this.truncatedWithKept(`s.${truncated}`);
    const valueOf = (key: string): string => (key === TRUNCATED_KEY && merged ? merged : `s.n${this.planKeys.indexOf(key)}`);
    const equal = (keys: readonly string[]): string =>
      keys
        .map((key) => `${valueOf(key)} IS NOT DISTINCT FROM t.${quoteIdent(key)}`)
        .concat('true')
        .join(' AND ');
    const kept = this.keptKeys.map((key, i) => `t.${quoteIdent(key)} AS k${i}, `).join('');
    const on = `t."_id" = s.n0${byCreation ? ` AND t."_createdAt" = s.${this.newCreatedAt}` : ''}`;
    const row = merged ? `s.* REPLACE (${merged} AS ${truncated})` : 's.*';
    return (
      `SELECT ${row}, t.rowid AS o_row, t.${quoteIdent(SYNC_ID_KEY)} AS o_sync, ${kept}t."_id" IS NOT NULL AS known, ` +
      `(t."_id" IS NOT NULL AND t."_updatedAt" IS DISTINCT FROM s.${this.newUpdatedAt}) AS changed, ` +
      `(${equal(this.planKeys.filter((key) => key !== '_id'))}) AS same, (${equal([...this.listKeys])}) AS lists_same ` +
      `FROM (${typedRows}) s LEFT JOIN ${quoteIdent(this.target.table)} t ON ${on}`
    );
  }

  /**
   * A row read's `_truncated` (`read`) with the kept columns the mirror's version names as cut (seed 5035 of the
   * simulator); undefined when the table keeps no column or has no `_truncated` (the row read's is the row's).
   */
  private truncatedWithKept(read: string): string | undefined {
    if (this.keptKeys.length === 0 || !this.planKeys.includes(TRUNCATED_KEY)) return undefined;
    const held = `t.${quoteIdent(TRUNCATED_KEY)}`;
    const kept = `[${this.keptKeys.map(quoteLiteral).join(', ')}]`;
    return (
      `CASE WHEN list_has_any(${held}, ${kept}) ` +
      `THEN list_concat(coalesce(${read}, []::VARCHAR[]), list_filter(${held}, k -> list_contains(${kept}, k))) ELSE ${read} END`
    );
  }

  /** The versions this group replaces, into the history table: replaced by this sync, at the new version's `_updatedAt`. */
  private async moveReplaced(connection: DuckDBConnection, matched: string): Promise<void> {
    const keys = [...this.allKeys, REPLACED_BY_KEY, CHANGE_KEY, REPLACED_AT_KEY].map(quoteIdent).join(', ');
    const values = [
      ...this.allKeys.map((key) => `t.${quoteIdent(key)}`),
      String(this.target.syncId),
      "'updated'",
      `m.${this.newUpdatedAt}`,
    ];
    await connection.run(
      `INSERT INTO ${quoteIdent(this.target.historyTable)} (${keys}) SELECT ${values.join(', ')} ` +
        `FROM ${matched} m JOIN ${quoteIdent(this.target.table)} t ON t.rowid = m.o_row WHERE m.changed`,
    );
  }

  /** Rows written again where they are: the values a row read fills (its lists are the same), and the `_syncId` of a new version. */
  private async updateInPlace(connection: DuckDBConnection, matched: string, which: string): Promise<void> {
    const set = this.planKeys
      .flatMap((key, i) => (key === '_id' || this.listKeys.has(key) ? [] : [`${quoteIdent(key)} = m.n${i}`]))
      .concat(`${quoteIdent(SYNC_ID_KEY)} = CASE WHEN m.changed THEN ${this.target.syncId} ELSE m.o_sync END`);
    await connection.run(
      `UPDATE ${quoteIdent(this.target.table)} AS t SET ${set.join(', ')} FROM ${matched} m WHERE t.rowid = m.o_row AND ${which}`,
    );
  }

  /** Rows inserted, with their kept values, and the `_syncId` of their version. */
  private async insert(connection: DuckDBConnection, matched: string, which: string): Promise<void> {
    const keys = [...this.planKeys, ...this.keptKeys, SYNC_ID_KEY].map(quoteIdent).join(', ');
    const values = [
      ...this.planKeys.map((_, i) => `n${i}`),
      ...this.keptKeys.map((_, i) => `k${i}`),
      `CASE WHEN known AND NOT changed THEN o_sync ELSE ${this.target.syncId} END`,
    ].join(', ');
    await connection.run(`INSERT INTO ${quoteIdent(this.target.table)} (${keys}) SELECT ${values} FROM ${matched} WHERE ${which}`);
  }
}
