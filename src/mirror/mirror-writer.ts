import { openRowAppender } from '../duckdb/append-rows.js';
import type { Database } from '../duckdb/engine.js';
import { jsonRowsFrom, jsonRowValues } from '../duckdb/json-rows.js';
import { quoteIdent, quoteLiteral } from '../duckdb/sql-text.js';
import type { TypedColumn } from '../records/typed-plan.js';
import { saveState, type TableState } from './table-state.js';

/** What one group of pages changed. */
export interface GroupCounts {
  inserted: number;
  updated: number;
}

/**
 * Writes pages of typed rows into a mirror table: each group of whole pages in one transaction with
 * the table's progress (its state row), so a crash leaves the mirror as of the last group written,
 * with the cursor to continue from. The rows reach DuckDB as one JSON text each (duckdb/json-rows.ts,
 * as in a Parquet export) with their ID, in a temporary inbox table, and are typed by DuckDB as they
 * move on: into a temporary stage table, from which they are upserted by `_id` (deleted, then
 * inserted). Their IDs are noted in _tds_pass for the pass's deletions at its end.
 *
 * While every row of the mirror table came in through this pass (a first sync, or one that continues
 * it), a group's rows are new ones: they are inserted from the inbox as they are, without a stage or a search
 * of the table for them (which grows with the table). The primary key still refuses a row the table has: that group is then
 * rolled back and written the general way, from the same inbox.
 */
export class MirrorWriter {
  private readonly inbox: string;
  private readonly stage: string;
  private readonly keys: string;
  private onlyNew = false;

  constructor(
    private readonly db: Database,
    private readonly table: string,
    private readonly columns: readonly TypedColumn[],
  ) {
    const suffix = Math.random().toString(36).slice(2, 10);
    this.inbox = `tds_inbox_${suffix}`;
    this.stage = `tds_stage_${suffix}`;
    this.keys = columns.map((column) => quoteIdent(column.key)).join(', ');
  }

  /** `insertedByPass`: rows the pass has inserted so far (saved with its progress). */
  async open(insertedByPass: number): Promise<void> {
    const { connection } = this.db;
    const reader = await connection.runAndReadAll(`SELECT count(*)::BIGINT AS n FROM ${this.target}`);
    this.onlyNew = Number(reader.getRowObjectsJS()[0]?.n ?? 0) <= insertedByPass;
    await this.makeTables();
  }

  async close(): Promise<void> {
    await this.db.connection.run(`DROP TABLE IF EXISTS temp.${this.inbox}`);
    await this.db.connection.run(`DROP TABLE IF EXISTS ${this.staged}`);
  }

  /**
   * One transaction: the rows, their IDs for the pass, and `state` (its pass counts these rows). A row
   * whose `_updatedAt` is the one the mirror has is unchanged: it is written again only when `rewrite`
   * (a full pass brings every row to the current labels and types). `rows`: each row's ID and its typed
   * values as one JSON text (duckdb/json-rows.ts), in the columns' order; one row per ID.
   */
  async write(rows: ReadonlyArray<[id: string, json: string]>, state: TableState, rewrite: boolean): Promise<GroupCounts> {
    const appender = await openRowAppender(this.db, { name: this.inbox, catalog: 'temp' }, ['VARCHAR', 'VARCHAR']);
    try {
      appender.append(rows);
    } finally {
      appender.close();
    }
    try {
      let counts: GroupCounts | undefined;
      if (this.onlyNew) {
        // the primary key refuses a row the mirror has: the general way then (which meets any other failure again)
        counts = await this.transaction(state, () => this.insertNew(rows.length)).catch(() => undefined);
      }
      return (counts ??= await this.transaction(state, () => this.upsert(rows.length, rewrite)));
    } finally {
      await this.makeTables();
    }
  }

  private async transaction(state: TableState, apply: () => Promise<GroupCounts>): Promise<GroupCounts> {
    const { connection } = this.db;
    await connection.run('BEGIN TRANSACTION');
    try {
      await connection.run(`INSERT INTO _tds_pass SELECT ${quoteLiteral(state.tableId)}, id FROM temp.${this.inbox}`);
      const counts = await apply();
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

  /** The rows of the inbox, typed by DuckDB (json-rows.ts), as a query. */
  private typedRows(): string {
    const typed = jsonRowValues(this.columns.map((column) => column.type));
    return `SELECT ${typed.join(', ')} FROM ${jsonRowsFrom(`temp.${this.inbox}`, 'row_json')}`;
  }

  private async insertNew(total: number): Promise<GroupCounts> {
    await this.db.connection.run(`INSERT INTO ${this.target} (${this.keys}) ${this.typedRows()}`);
    return { inserted: total, updated: 0 };
  }

  private async upsert(total: number, rewrite: boolean): Promise<GroupCounts> {
    const { connection } = this.db;
    await connection.run(`INSERT INTO ${this.staged} ${this.typedRows()}`);
    const counts = await this.compare(total);
    if (!rewrite) await connection.run(`DELETE FROM ${this.staged} WHERE "_id" IN (${this.unchangedIds()})`);
    await connection.run(`DELETE FROM ${this.target} WHERE "_id" IN (SELECT "_id" FROM ${this.staged})`);
    await connection.run(`INSERT INTO ${this.target} (${this.keys}) SELECT ${this.keys} FROM ${this.staged}`);
    return counts;
  }

  /** The inbox and the stage, empty: made anew for each group (a table keeps the memory of deleted rows until it is dropped). */
  private async makeTables(): Promise<void> {
    const { connection } = this.db;
    await this.close();
    await connection.run(`CREATE TEMP TABLE ${this.inbox} (id VARCHAR, row_json VARCHAR)`);
    const list = this.columns.map((column) => `${quoteIdent(column.key)} ${column.type}`).join(', ');
    await connection.run(`CREATE TEMP TABLE ${this.stage} (${list})`);
  }

  /** Rows new to the mirror, and rows it has with another `_updatedAt`. */
  private async compare(total: number): Promise<GroupCounts> {
    const reader = await this.db.connection.runAndReadAll(
      `SELECT count(*)::INTEGER AS known, count(*) FILTER (WHERE t."_updatedAt" IS DISTINCT FROM s."_updatedAt")::INTEGER AS changed ` +
        `FROM ${this.target} t JOIN ${this.staged} s USING ("_id")`,
    );
    const row = reader.getRowObjectsJS()[0] ?? {};
    return { inserted: total - Number(row.known ?? 0), updated: Number(row.changed ?? 0) };
  }

  private unchangedIds(): string {
    return `SELECT s."_id" FROM ${this.staged} s JOIN ${this.target} t USING ("_id") WHERE t."_updatedAt" = s."_updatedAt"`;
  }

  private get staged(): string {
    return `temp.${this.stage}`;
  }

  private get target(): string {
    return quoteIdent(this.table);
  }
}
