import type { DuckDBConnection } from '@duckdb/node-api';
import { duckdbFailure, openRowAppender, type RowAppender, type Database, quoteIdent, quoteLiteral } from '../duckdb/index.js';
import { GroupUpsert, readTableColumns, type GroupCounts, type TableColumn, type WriteTarget } from './group-upsert.js';
import { SYNC_ID_KEY } from './history/history-objects.js';

export type { GroupCounts, WriteTarget } from './group-upsert.js';
import type { TypedColumn, TypedValue } from '../records/index.js';
import { fitIndexMemory, fitTableMemory } from './index-memory.js';
import { beganOnEmpty } from './pass.js';
import { saveState, type TableState } from './table-state.js';

/**
 * Writes pages of typed rows into a mirror table: each group of whole pages in one transaction with
 * the table's progress (its state row), so a crash leaves the mirror as of the last group written,
 * with the cursor to continue from. The rows reach DuckDB typed (duckdb/append-rows.ts, as in a Parquet
 * export), appended as they are read to a temporary inbox table of the plan's types (n0, n1, …; n0 is
 * `_id`), and move on from it: matched by `_id` with the version the mirror holds (group-upsert.ts),
 * which moves into the history table when another version replaces it, in the same transaction. Their
 * IDs are noted in _tds_pass for the pass's deletions at its end, unless the pass began on an empty
 * table (pass.ts FROM_EMPTY).
 *
 * Two lanes (a connection of their own each, with its own inbox) take turns: while one writes its group, the pages
 * read meanwhile go to the other's inbox. Rows cross into DuckDB the moment they are read, so they never
 * wait in the JavaScript heap (where they would outlive the young generation and fill the old one with
 * garbage).
 *
 * While every row of the mirror table came in through this pass (a first sync, or one that continues
 * it), a group's rows are new ones: they are inserted from the inbox as they are, without a search of
 * the table for them (which grows with the table). The primary key still refuses a row the table has,
 * or one read twice in the group: that group is then rolled back and written the general way, from the same inbox.
 *
 * A pass that began on an empty table (a first sync) goes further: its rows are appended straight into
 * the mirror table, with no inbox (each row's text copied once less), and a group's transaction hands
 * them to the table. A group the primary key refuses then has no inbox to be written from: it is rolled
 * back and the write fails with KeyRefused, and the pass reads its pages again from the progress last
 * saved, written the general way (read-pages.ts).
 */
export class MirrorWriter {
  private upsert?: GroupUpsert;
  private readonly lanes: Lane[] = [];
  /** The lane that takes the rows read now. */
  private current = 0;
  private onlyNew = false;
  /** Whether the rows' IDs are noted for the pass (not when it began on an empty table). */
  private notes = false;
  /** The table's rows when opened, and whether DuckDB's limit was raised for its index (fitIndex). */
  private tableRows = 0;
  private indexFitted = false;

  constructor(
    private readonly db: Database,
    private readonly target: WriteTarget,
    private readonly columns: readonly TypedColumn[],
  ) {}

  /**
   * `pass`: the pass the writes belong to, the rows it has inserted so far (saved with its progress), and
   * `straight` false when its rows must not be appended straight into the table (after KeyRefused); none for a verification page.
   */
  async open(pass?: { tableId: string; inserted: number; straight?: boolean }): Promise<void> {
    const { connection } = this.db;
    const reader = await connection.runAndReadAll(`SELECT count(*)::BIGINT AS n FROM ${quoteIdent(this.target.table)}`);
    const rows = Number(reader.getRowObjectsJS()[0]?.n ?? 0);
    this.onlyNew = rows <= (pass?.inserted ?? 0);
    if (pass) this.notes = !(await beganOnEmpty(connection, pass.tableId, rows));
    this.tableRows = rows;
    // every group of a pass that only appends writes the index; an upsert's, only when it inserts a row
    if (this.onlyNew) await this.fitIndex(connection);
    const tableColumns = await readTableColumns(this.db.connection, this.target.table);
    this.upsert = new GroupUpsert(this.target, this.columns, tableColumns);
    const straight =
      pass !== undefined && pass.straight !== false && this.onlyNew && !this.notes && holdsPlanOnly(tableColumns, this.columns);
    // connections of their own: the database's is another table's while tables are synced at once (sync-run.ts)
    for (const connection of [await this.db.connect(), await this.db.connect()]) {
      const into = straight
        ? { catalog: await currentDatabase(connection), table: this.target.table, syncId: this.target.syncId }
        : undefined;
      const lane = new Lane(this.db, connection, this.columns, into);
      this.lanes.push(lane);
      await lane.makeTables();
    }
  }

  async close(): Promise<void> {
    for (const lane of this.lanes) await lane.close();
    this.lanes.length = 0;
  }

  /** Rows read (each row's typed values, in the columns' order), for the next write. */
  async append(rows: readonly (readonly TypedValue[])[]): Promise<void> {
    await this.lanes[this.current]!.append(rows);
  }

  /** Whether the table holds only the pass's rows (a group's rows are inserted as they are). */
  get appendsOnly(): boolean {
    return this.onlyNew;
  }

  /** Rows appended since the last write. */
  get waiting(): number {
    return this.lanes[this.current]?.rows ?? 0;
  }

  /**
   * One transaction: the rows appended since the last write, their IDs for the pass, and `state` (its
   * pass counts these rows). A row whose `_updatedAt` is the one the mirror has is unchanged: it is
   * written again only when `rewrite` (a full pass brings every row to the current labels and types)
   * and its values differ, as the same version. Rows appended meanwhile go to the next write. One write at a time.
   */
  async write(state: TableState, rewrite: boolean, also?: (connection: DuckDBConnection) => Promise<void>): Promise<GroupCounts> {
    const lane = this.lanes[this.current]!;
    this.current = 1 - this.current;
    const total = lane.seal();
    try {
      if (lane.straight) return await this.handOver(lane, state, total);
      if (this.onlyNew) {
        // the primary key refuses a row the mirror has: the general way then (which meets any other failure again)
        const counts = await lane.transaction(state, this.notes, () => this.insertNew(lane, total), also).catch(() => undefined);
        if (counts) return counts;
      }
      // a row read twice in the group is written once, as read last (a sort of the group, only when there is one)
      const rows = lane.typedRows(await lane.hasRepeats());
      // matched by creation time first (fast); a row whose creation time changed is refused then: by `_id` alone
      const upsert = (byCreation: boolean): Promise<GroupCounts> =>
        lane.transaction(
          state,
          this.notes,
          () => this.upsert!.write(lane.connection, { typedRows: rows, rewrite, byCreation }, () => this.fitIndex(lane.connection)),
          also,
        );
      return (await upsert(true).catch(() => undefined)) ?? (await upsert(false));
    } finally {
      await fitIndexMemory(lane.connection);
      await lane.makeTables();
    }
  }

  /**
   * DuckDB's limit raised for the table's index before the first write that changes it (index-memory.ts):
   * a pass that changes no row's place (a --full pass over an unchanged table) never brings the index
   * into memory, and its reads get no room they would fill (over 1,000,000 rows it peaked at 304-323 MB
   * with the limit raised at its start, 256-272 MB without).
   */
  private async fitIndex(connection: DuckDBConnection): Promise<void> {
    if (this.indexFitted) return;
    this.indexFitted = true;
    await fitTableMemory(connection, this.tableRows);
  }

  /** The rows appended straight into the table handed to it in the group's transaction; the key's refusal is KeyRefused. */
  private async handOver(lane: Lane, state: TableState, total: number): Promise<GroupCounts> {
    try {
      return await lane.transaction(state, false, () => {
        lane.handOver();
        return Promise.resolve({ inserted: total, updated: 0 });
      });
    } catch (error) {
      if (duckdbFailure(error) === 'duplicate-key') throw new KeyRefused();
      throw error;
    }
  }

  private async insertNew(lane: Lane, total: number): Promise<GroupCounts> {
    await lane.connection.run(this.upsert!.insertNewSql(lane.typedRows(false)));
    return { inserted: total, updated: 0 };
  }
}

/**
 * Thrown by a write of rows appended straight into the table that the primary key refused (a row the
 * table has, or one read twice: rows that moved while the pass read): nothing of the group was written,
 * and its rows are gone; the pass reads them again from its saved progress, the general way.
 */
export class KeyRefused extends Error {
  constructor() {
    super('the primary key refused a row appended straight into the mirror table');
  }
}

/** Whether a mirror table's columns are the plan's and then `_syncId`, in that order (no removed field's column kept). */
function holdsPlanOnly(table: readonly TableColumn[], columns: readonly TypedColumn[]): boolean {
  const keys = [...columns.map((column) => column.key), SYNC_ID_KEY];
  return table.length === keys.length && table.every((column, i) => column.key === keys[i]);
}

async function currentDatabase(connection: DuckDBConnection): Promise<string> {
  const reader = await connection.runAndReadAll('SELECT current_database() AS name');
  return String(reader.getRowObjectsJS()[0]?.name);
}

/** A mirror table that rows are appended into straight, and the `_syncId` of each. */
interface StraightInto {
  catalog: string;
  table: string;
  syncId: number;
}

/**
 * A connection with its own temporary inbox and stage (temporary tables belong to their connection), or
 * with an appender straight into the mirror table (`into`): its rows wait in the appender, not yet the
 * table's, until a group's transaction hands them over. DuckDB's appender hands its rows over by itself
 * past 204,800 (its flush count), outside any transaction: a lane never holds that many
 * (read-pages.ts MAX_WAITING_ROWS).
 */
class Lane {
  private readonly suffix = Math.random().toString(36).slice(2, 10);
  private readonly inboxName = `tds_inbox_${this.suffix}`;
  private appender: RowAppender | undefined;
  /** Rows appended since the last seal. */
  rows = 0;

  constructor(
    private readonly db: Database,
    readonly connection: DuckDBConnection,
    private readonly columns: readonly TypedColumn[],
    private readonly into?: StraightInto,
  ) {}

  /** Whether the rows go straight into the mirror table. */
  get straight(): boolean {
    return this.into !== undefined;
  }

  /** The rows appended straight, handed to the table (within the group's transaction). */
  handOver(): void {
    this.appender!.flush();
  }

  private get inbox(): string {
    return `temp.${this.inboxName}`;
  }

  /** Appends to the inbox (made with its appender by makeTables); a failure (a value DuckDB cannot cast) drops the group. */
  async append(rows: readonly (readonly TypedValue[])[]): Promise<void> {
    // after a failed append (dropped, with the rows appended before it): appended straight, a new appender
    if (!this.appender) await this.makeTables();
    try {
      await this.appender!.append(rows);
    } catch (error) {
      this.appender?.discard();
      this.appender = undefined;
      this.rows = 0;
      // into the table, the next append opens another (when the mirror is attached again: the file may be let go now)
      if (!this.into) await this.makeTables();
      throw error;
    }
    this.rows += rows.length;
  }

  /** Hands the rows appended to the inbox, for a write; returns how many there are. Rows appended straight stay in the appender. */
  seal(): number {
    if (!this.into) {
      this.appender?.close();
      this.appender = undefined;
    }
    const rows = this.rows;
    this.rows = 0;
    return rows;
  }

  /** `also`: more of the same transaction, after the rows (a verification's deletions). Without a pass, no IDs are noted. */
  async transaction(
    state: TableState,
    notes: boolean,
    apply: () => Promise<GroupCounts>,
    also?: (connection: DuckDBConnection) => Promise<void>,
  ): Promise<GroupCounts> {
    const { connection } = this;
    await connection.run('BEGIN TRANSACTION');
    try {
      if (state.pass && notes) await connection.run(`INSERT INTO _tds_pass SELECT ${quoteLiteral(state.tableId)}, n0 FROM ${this.inbox}`);
      const counts = await apply();
      await also?.(connection);
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

  /** Whether a row was read twice into the inbox. */
  async hasRepeats(): Promise<boolean> {
    const reader = await this.connection.runAndReadAll(`SELECT count(*) > count(DISTINCT n0) AS repeats FROM ${this.inbox}`);
    return reader.getRowObjectsJS()[0]?.repeats === true;
  }

  /** The rows of the inbox as a query whose columns are n0, n1, … (the columns' order); `latest`: one row per ID, the copy read last. */
  typedRows(latest: boolean): string {
    const values = this.columns.map((_, i) => `n${i}`).join(', ');
    if (!latest) return `SELECT ${values} FROM ${this.inbox}`;
    return `SELECT DISTINCT ON (n0) ${values} FROM ${this.inbox} ORDER BY n0, rowid DESC`;
  }

  /** The inbox (with its appender), empty: made anew for each group (a table keeps the memory of deleted rows until it is dropped); or the appender into the table. */
  async makeTables(): Promise<void> {
    await this.dropTables();
    if (this.into) {
      const types = [...this.columns.map((column) => column.type), 'BIGINT' as const];
      this.appender = await openRowAppender(
        { connection: this.connection },
        { name: this.into.table, catalog: this.into.catalog },
        types,
        this.into.syncId,
      );
      return;
    }
    const columns = this.columns.map((column, i) => `n${i} ${column.type}`).join(', ');
    await this.connection.run(`CREATE TEMP TABLE ${this.inboxName} (${columns})`);
    this.appender = await openRowAppender(
      { connection: this.connection },
      { name: this.inboxName, catalog: 'temp' },
      this.columns.map((column) => column.type),
    );
  }

  /** Drops the tables and closes the lane's connection. */
  async close(): Promise<void> {
    await this.dropTables().catch(() => undefined);
    this.connection.closeSync();
  }

  /** The inbox dropped; rows appended straight and not handed over are dropped too (never handed over outside a group's transaction). */
  private async dropTables(): Promise<void> {
    if (this.into) {
      this.appender?.discard();
      this.appender = undefined;
      this.rows = 0;
      return;
    }
    this.seal();
    await this.connection.run(`DROP TABLE IF EXISTS ${this.inbox}`);
  }
}
