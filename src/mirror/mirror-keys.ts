import { access } from 'node:fs/promises';
import type { Context } from '../core/index.js';
import { type Database, quoteIdent, quoteLiteral } from '../duckdb/index.js';
import type { ApiClient } from '../http/index.js';
import { TRUNCATED_KEY } from '../records/index.js';
import { PAGE_LIMIT_MAX, type Table } from '../service/index.js';
import { heldOpen, openMirror } from './mirror-db.js';
import { syncTable } from './sync-table.js';
import { loadStates, type TableState } from './table-state.js';

/**
 * The local mirror as the source of a table's keys for `tds push --skip-existing --db FILE`: what an
 * incremental sync would cost, and the key column's values once the table has been synced.
 */
export class MirrorKeys {
  requests = 0;
  private db?: Database;

  constructor(
    private readonly ctx: Context,
    private readonly client: ApiClient,
    private readonly path: string,
  ) {}

  /** Row requests an incremental sync should take: the rows new since the mirror's watermark, a page at least. */
  async syncCost(table: Table, rowCount: number): Promise<number | undefined> {
    if (
      !this.db &&
      !(await access(this.path).then(
        () => true,
        () => false,
      ))
    )
      return undefined;
    const state = await this.stateOf(table);
    if (!state || state.pass) return undefined;
    const db = await this.open();
    const mirrored = await this.count(db, state.mirrorTable, null);
    const above = await this.count(db, state.mirrorTable, state.watermark);
    // the pass reads the new rows and those above the watermark, newest first, in pages of 100
    return Math.max(1, Math.ceil((Math.max(0, rowCount - mirrored) + above) / PAGE_LIMIT_MAX));
  }

  /** Syncs the table (incrementally), then the text of each value of the field's column the service did not cut. */
  async keyTexts(table: Table, fieldId: string): Promise<string[]> {
    const db = await this.open();
    const state = await this.stateOf(table);
    const result = await syncTable(table, state, {
      ctx: this.ctx,
      client: this.client,
      mirror: heldOpen(db),
      full: false,
      taken: new Set(),
      say: (line) => this.ctx.io.stderr.write(`${line}\n`),
    });
    this.requests += result.requests;
    const columns = await db.connection.runAndReadAll(
      'SELECT key FROM _tds_columns WHERE table_id = $1 AND field_id = $2 AND NOT removed',
      [table.id, fieldId],
    );
    const key = columns.getRowObjectsJS()[0]?.key;
    if (typeof key !== 'string') return [];
    const reader = await db.connection.runAndReadAll(
      `SELECT CAST(${quoteIdent(key)} AS VARCHAR) AS v FROM ${quoteIdent(result.mirrorTable)} ` +
        `WHERE ${quoteIdent(key)} IS NOT NULL AND NOT list_contains(coalesce(${quoteIdent(TRUNCATED_KEY)}, []), ${quoteLiteral(key)})`,
    );
    return reader.getRowObjectsJS().map((row) => String(row.v));
  }

  close(): void {
    this.db?.close();
    this.db = undefined;
  }

  private async open(): Promise<Database> {
    this.db ??= await openMirror(this.path, { readOnly: false });
    return this.db;
  }

  private async stateOf(table: Table): Promise<TableState | undefined> {
    const db = await this.open();
    return (await loadStates(db.connection)).find((state) => state.tableId === table.id);
  }

  private async count(db: Database, mirrorTable: string, since: string | null): Promise<number> {
    const where = since === null ? '' : ` WHERE "_createdAt" >= ${quoteLiteral(since)}::TIMESTAMPTZ`;
    const reader = await db.connection.runAndReadAll(`SELECT count(*) AS n FROM ${quoteIdent(mirrorTable)}${where}`);
    return Number(reader.getRowObjectsJS()[0]?.n ?? 0);
  }
}
