import type { DuckDBConnection } from '@duckdb/node-api';
import { quoteIdent } from '../duckdb/sql-text.js';
import type { TypedColumn } from '../records/typed-plan.js';
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
 * one per `_id`, as n0, n1, … in the plan's order) are matched with the versions the mirror holds
 * (o0, o1, … in the table's order) in a temporary table, then:
 *
 * - a version the mirror holds with another `_updatedAt` moves into the history table (replaced by this
 *   sync, at the new version's `_updatedAt`), and the new version takes its place with this `_syncId`;
 * - a new row is inserted with this `_syncId`;
 * - a row read again unchanged is not written (no version, no byte), unless `rewrite` (a full pass) and
 *   its values differ (new labels or types): then it is written again as the same version, its
 *   `_syncId` kept;
 * - a row written again keeps the values of the columns no field fills any more (a removed field's).
 */
export class GroupUpsert {
  private readonly matched = `temp.tds_matched_${Math.random().toString(36).slice(2, 10)}`;
  /** The plan's keys (what a row read fills), then the kept ones (what only the mirror holds). */
  private readonly planKeys: string[];
  private readonly keptIndexes: number[];
  private readonly allKeys: string[];
  private readonly known = 'known';
  private readonly changed: string;
  private readonly sameVersion: string;
  private readonly equal: string;
  private readonly oldSyncId: string;
  private readonly newUpdatedAt: string;

  constructor(
    private readonly target: WriteTarget,
    columns: readonly TypedColumn[],
    private readonly table: readonly TableColumn[],
  ) {
    this.planKeys = columns.map((column) => column.key);
    this.allKeys = table.map((column) => column.key);
    const old = (key: string): string => `o${this.allKeys.indexOf(key)}`;
    const written = new Set([...this.planKeys, SYNC_ID_KEY]);
    this.keptIndexes = table.flatMap((column, i) => (written.has(column.key) ? [] : [i]));
    this.newUpdatedAt = `n${this.planKeys.indexOf('_updatedAt')}`;
    const oldUpdatedAt = old('_updatedAt');
    this.oldSyncId = old(SYNC_ID_KEY);
    this.changed = `(known AND ${oldUpdatedAt} IS DISTINCT FROM ${this.newUpdatedAt})`;
    this.sameVersion = `(known AND ${oldUpdatedAt} IS NOT DISTINCT FROM ${this.newUpdatedAt})`;
    this.equal = `(${this.planKeys
      .map((key, i) => (key === '_id' ? '' : `n${i} IS NOT DISTINCT FROM ${old(key)}`))
      .filter(Boolean)
      .join(' AND ')})`;
  }

  /** Every row of the group inserted as new (the table holds only this pass's rows). */
  insertNewSql(typedRows: string): string {
    const list = [...this.planKeys, SYNC_ID_KEY].map(quoteIdent).join(', ');
    const values = this.planKeys.map((_, i) => `n${i}`).join(', ');
    return `INSERT INTO ${quoteIdent(this.target.table)} (${list}) SELECT ${values}, ${this.target.syncId} FROM (${typedRows})`;
  }

  async write(connection: DuckDBConnection, typedRows: string, rewrite: boolean): Promise<GroupCounts> {
    const target = quoteIdent(this.target.table);
    const olds = this.allKeys.map((key, i) => `t.${quoteIdent(key)} AS o${i}`).join(', ');
    await connection.run(`DROP TABLE IF EXISTS ${this.matched}`);
    await connection.run(
      `CREATE TEMP TABLE ${this.matched.slice('temp.'.length)} AS SELECT s.*, ${olds}, t."_id" IS NOT NULL AS ${this.known} ` +
        `FROM (${typedRows}) s LEFT JOIN ${target} t ON t."_id" = s.n0`,
    );
    try {
      const write = rewrite ? `(NOT known OR NOT ${this.sameVersion} OR NOT ${this.equal})` : `(NOT known OR ${this.changed})`;
      const reader = await connection.runAndReadAll(
        `SELECT count(*) FILTER (WHERE NOT known)::INTEGER AS inserted, count(*) FILTER (WHERE ${this.changed})::INTEGER AS updated, ` +
          `count(*) FILTER (WHERE ${write})::INTEGER AS written FROM ${this.matched}`,
      );
      const counts = reader.getRowObjectsJS()[0] ?? {};
      const inserted = Number(counts.inserted ?? 0);
      const updated = Number(counts.updated ?? 0);
      if (updated > 0) await this.moveReplaced(connection);
      if (Number(counts.written ?? 0) > 0) {
        await connection.run(`DELETE FROM ${target} WHERE "_id" IN (SELECT n0 FROM ${this.matched} WHERE known AND ${write})`);
        const keys = [...this.planKeys, ...this.keptIndexes.map((i) => this.allKeys[i]!), SYNC_ID_KEY].map(quoteIdent).join(', ');
        const values = [
          ...this.planKeys.map((_, i) => `n${i}`),
          ...this.keptIndexes.map((i) => `o${i}`),
          `CASE WHEN ${this.sameVersion} THEN ${this.oldSyncId} ELSE ${this.target.syncId} END`,
        ].join(', ');
        await connection.run(`INSERT INTO ${target} (${keys}) SELECT ${values} FROM ${this.matched} WHERE ${write}`);
      }
      return { inserted, updated };
    } finally {
      await connection.run(`DROP TABLE IF EXISTS ${this.matched}`);
    }
  }

  /** The versions this group replaces, into the history table: replaced by this sync, at the new version's `_updatedAt`. */
  private async moveReplaced(connection: DuckDBConnection): Promise<void> {
    const keys = [...this.allKeys, REPLACED_BY_KEY, CHANGE_KEY, REPLACED_AT_KEY].map(quoteIdent).join(', ');
    const values = [...this.allKeys.map((_, i) => `o${i}`), String(this.target.syncId), "'updated'", this.newUpdatedAt].join(', ');
    await connection.run(
      `INSERT INTO ${quoteIdent(this.target.historyTable)} (${keys}) SELECT ${values} FROM ${this.matched} WHERE ${this.changed}`,
    );
  }
}
