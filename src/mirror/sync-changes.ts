import type { Context } from '../core/context.js';
import type { Database } from '../duckdb/engine.js';
import { createRecordWriter } from '../output/page-encoder.js';
import type { OutputRecord } from '../records/row-shaper.js';
import { diffOfSync } from './diff/open-diff.js';
import { loadStates } from './table-state.js';

const KEYS = ['table', 'tableId', 'syncId', 'change', '_id', 'before', 'after'];

/**
 * How far each table's stream of changes was delivered: the last sync whose records were all written
 * to stdout. A table gets its row the first time `--changes` syncs it (from its last sync then on).
 */
const DELIVERED_TABLE = `CREATE TABLE IF NOT EXISTS _tds_changes (table_id VARCHAR PRIMARY KEY, delivered_sync BIGINT NOT NULL)`;

/**
 * `tds sync --changes`: the diff records of what each sync of a table changed, on stdout as NDJSON,
 * each with the mirror table's name, the table's ID and the sync's ID, delivered at least once and in
 * sync order. Every writer of versions goes through it: whatever committed versions under a sync
 * (a sync, a pass killed midway, a verification) is delivered by the next `deliver` of that table once
 * the sync has ended (or died), and the mirror notes the sync delivered only after its last record was
 * handed to stdout. A closed pipe, a crash or a kill before that leaves the sync to be delivered again,
 * whole, first thing by the next `--changes`: a record delivered twice is the same record, the pair
 * (`syncId`, `_id`) names it. Records are written whole, Ctrl-C or not.
 */
export class ChangesStream {
  private constructor(
    private readonly ctx: Context,
    private readonly db: Database,
  ) {}

  /** The stream of a writable mirror (its table of positions made if need be). */
  static async open(ctx: Context, db: Database): Promise<ChangesStream> {
    await db.connection.run(DELIVERED_TABLE);
    return new ChangesStream(ctx, db);
  }

  /**
   * Writes the records of every sync of the table not delivered yet, oldest first, each noted delivered
   * once written. Call it when no sync of the table is under way (the writer holds the mirror): before
   * a table's sync (what an earlier run committed and did not deliver), and after it, failed or not.
   */
  async deliver(tableId: string): Promise<void> {
    const { connection } = this.db;
    const known = await connection.runAndReadAll('SELECT delivered_sync FROM _tds_changes WHERE table_id = $1', [tableId]);
    const delivered = known.getRowObjectsJS()[0]?.delivered_sync;
    if (delivered === undefined) {
      // a table's first --changes: its stream starts after what it held already
      await connection.run('INSERT INTO _tds_changes SELECT $1, coalesce(max(sync_id), 0) FROM _tds_syncs WHERE table_id = $1', [tableId]);
      return;
    }
    const pending = await connection.runAndReadAll('SELECT sync_id FROM _tds_syncs WHERE table_id = $1 AND sync_id > $2 ORDER BY sync_id', [
      tableId,
      Number(delivered),
    ]);
    for (const row of pending.getRowObjectsJS()) {
      const syncId = Number(row.sync_id);
      await this.write(tableId, syncId);
      await connection.run('UPDATE _tds_changes SET delivered_sync = $2 WHERE table_id = $1', [tableId, syncId]);
    }
  }

  private async write(tableId: string, syncId: number): Promise<void> {
    const state = (await loadStates(this.db.connection)).find((candidate) => candidate.tableId === tableId);
    if (!state?.historyTable) return;
    const diff = await diffOfSync(this.db, state, syncId);
    const { stdout } = this.ctx.io;
    const writer = createRecordWriter(stdout, { format: 'ndjson', columns: KEYS });
    for await (const record of diff.records()) {
      await writer.write({ table: state.mirrorTable, tableId, syncId, ...record } as unknown as OutputRecord);
    }
    await writer.end();
    // handed to the system: the callback of a write comes after those before it
    await new Promise<void>((resolve, reject) => stdout.write('', (error) => (error ? reject(error) : resolve())));
  }
}
