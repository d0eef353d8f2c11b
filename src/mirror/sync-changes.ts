import type { Context } from '../core/context.js';
import type { Database } from '../duckdb/engine.js';
import { createRecordWriter } from '../output/record-writer.js';
import type { OutputRecord } from '../records/row-shaper.js';
import { diffOfSync } from './diff/open-diff.js';
import { loadStates } from './table-state.js';

const KEYS = ['table', 'tableId', 'syncId', 'change', '_id', 'before', 'after'];

/**
 * `tds sync --changes`: the diff records of what one table's sync changed, on stdout as NDJSON, each
 * with the mirror table's name, the table's ID and the sync's ID. Written whole, whatever comes
 * meanwhile (Ctrl-C included): a record is never cut, and no change of a sync goes unsaid.
 */
export async function printChanges(ctx: Context, db: Database, tableId: string, syncId: number): Promise<void> {
  const state = (await loadStates(db.connection)).find((candidate) => candidate.tableId === tableId);
  if (!state?.historyTable) return;
  const diff = await diffOfSync(db, state, syncId);
  const writer = createRecordWriter(ctx.io.stdout, { format: 'ndjson', columns: KEYS });
  for await (const record of diff.records()) {
    await writer.write({ table: state.mirrorTable, tableId, syncId, ...record } as unknown as OutputRecord);
  }
  await writer.end();
}
