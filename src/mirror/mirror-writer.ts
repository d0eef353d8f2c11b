import type { Database } from '../duckdb/engine.js';
import { appendRows, stagedSqlType } from '../duckdb/append-rows.js';
import { quoteIdent, quoteLiteral } from '../duckdb/sql-text.js';
import type { TypedColumn } from '../records/typed-plan.js';
import type { TypedValue } from '../records/typed-values.js';
import { saveState, type TableState } from './table-state.js';

/** What one group of pages changed. */
export interface GroupCounts {
  inserted: number;
  updated: number;
}

/**
 * Writes pages of typed rows into a mirror table: each group of whole pages in one transaction with
 * the table's progress (its state row), so a crash leaves the mirror as of the last group written,
 * with the cursor to continue from. Rows are upserted by `_id` (deleted, then inserted from a staging
 * table); their IDs are noted in _tds_pass for the pass's deletions at its end.
 */
export class MirrorWriter {
  private readonly stage: string;
  private readonly keys: string;

  constructor(
    private readonly db: Database,
    private readonly table: string,
    private readonly columns: readonly TypedColumn[],
  ) {
    this.stage = `tds_stage_${Math.random().toString(36).slice(2, 10)}`;
    this.keys = columns.map((column) => quoteIdent(column.key)).join(', ');
  }

  async open(): Promise<void> {
    const list = this.columns.map((column) => `${quoteIdent(column.key)} ${stagedSqlType(column.type)}`).join(', ');
    await this.db.connection.run(`CREATE TEMP TABLE ${this.stage} (${list})`);
  }

  async close(): Promise<void> {
    await this.db.connection.run(`DROP TABLE IF EXISTS ${this.staged}`);
  }

  /**
   * One transaction: the rows (the last copy of a row wins), their IDs for the pass, and `state` (its
   * pass counts these rows). A row whose `_updatedAt` is the one the mirror has is unchanged: it is
   * written again only when `rewrite` (a full pass brings every row to the current labels and types).
   */
  async write(rows: readonly TypedValue[][], state: TableState, rewrite: boolean): Promise<GroupCounts> {
    const unique = [...new Map(rows.map((row) => [row[0] as string, row])).values()];
    const { connection } = this.db;
    await connection.run('BEGIN TRANSACTION');
    try {
      await appendRows(
        this.db,
        { name: this.stage, catalog: 'temp' },
        this.columns.map((column) => column.type),
        unique,
      );
      await connection.run(`INSERT INTO _tds_pass SELECT ${quoteLiteral(state.tableId)}, "_id" FROM ${this.staged}`);
      const counts = await this.compare(unique.length);
      if (!rewrite) await connection.run(`DELETE FROM ${this.staged} WHERE "_id" IN (${this.unchangedIds()})`);
      await connection.run(`DELETE FROM ${this.target} WHERE "_id" IN (SELECT "_id" FROM ${this.staged})`);
      await connection.run(`INSERT INTO ${this.target} (${this.keys}) SELECT ${this.selectList()} FROM ${this.staged}`);
      await connection.run(`DELETE FROM ${this.staged}`);
      if (state.pass) {
        state.pass.inserted += counts.inserted;
        state.pass.updated += counts.updated;
      }
      await saveState(connection, state);
      await connection.run('COMMIT');
      return counts;
    } catch (error) {
      await connection.run('ROLLBACK').catch(() => undefined);
      throw error;
    }
  }

  /** Rows new to the mirror, and rows it has with another `_updatedAt`. */
  private async compare(total: number): Promise<GroupCounts> {
    const reader = await this.db.connection.runAndReadAll(
      `SELECT count(*)::INTEGER AS known, count(*) FILTER (WHERE t."_updatedAt" IS DISTINCT FROM CAST(s."_updatedAt" AS TIMESTAMPTZ))::INTEGER AS changed ` +
        `FROM ${this.target} t JOIN ${this.staged} s USING ("_id")`,
    );
    const row = reader.getRowObjectsJS()[0] ?? {};
    return { inserted: total - Number(row.known ?? 0), updated: Number(row.changed ?? 0) };
  }

  private unchangedIds(): string {
    return `SELECT s."_id" FROM ${this.staged} s JOIN ${this.target} t USING ("_id") WHERE t."_updatedAt" = CAST(s."_updatedAt" AS TIMESTAMPTZ)`;
  }

  private get staged(): string {
    return `temp.${this.stage}`;
  }

  private get target(): string {
    return quoteIdent(this.table);
  }

  private selectList(): string {
    return this.columns
      .map((column) => {
        const key = quoteIdent(column.key);
        return column.type === 'JSON' || column.type === 'TIMESTAMPTZ' ? `CAST(${key} AS ${column.type})` : key;
      })
      .join(', ');
  }
}
