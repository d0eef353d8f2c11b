import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import type { Database } from '../../src/duckdb/engine.js';
import { createTableSql } from '../../src/mirror/apply-schema.js';
import { createHistoryTable } from '../../src/mirror/history/history-objects.js';
import { openMirror } from '../../src/mirror/mirror-db.js';
import { MirrorWriter, type GroupCounts } from '../../src/mirror/mirror-writer.js';
import { type PassState, type TableState } from '../../src/mirror/table-state.js';
import type { TypedColumn } from '../../src/records/typed-plan.js';
import type { TypedValue } from '../../src/records/typed-values.js';

// What the MirrorWriter tests share: a mirror with a table `t` and its history, a pass's state, rows, and
// what the table and the pass hold.

export const COLUMNS: TypedColumn[] = [
  { key: '_id', type: 'VARCHAR', role: 'id' },
  { key: '_createdAt', type: 'TIMESTAMPTZ', role: 'meta' },
  { key: '_updatedAt', type: 'TIMESTAMPTZ', role: 'meta' },
  { key: 'n', type: 'DOUBLE', role: 'meta' },
];
export const TABLE = 't';
export const NAMES = { historyTable: 't__history', atSyncMacro: 't_at_sync', atMacro: 't_at' };
export const TARGET = { table: TABLE, historyTable: NAMES.historyTable, syncId: 7 };
/** What MirrorWriter.open is told of a pass (state()'s) that has inserted nothing yet. */
export const NEW_PASS = { tableId: 'tbl_1', inserted: 0 };

async function makeTable(): Promise<void> {
  await db.connection.run(createTableSql(TABLE, COLUMNS, [{ key: '_syncId', type: 'BIGINT' }]));
  await createHistoryTable(db.connection, TABLE, NAMES);
}

let dir: string;
/** The mirror of the test under way (useWriterDb opens one before each test). */
export let db: Database;

/** Before each test, a mirror in a folder of its own with the table and its history; closed after it. */
export function useWriterDb(): void {
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tds-writer-'));
    db = await openMirror(join(dir, 'mirror.duckdb'), { readOnly: false });
    await makeTable();
  });
  afterEach(async () => {
    db.close();
    await rm(dir, { recursive: true, force: true });
  });
}

export function state(pass: Partial<PassState> = {}): TableState {
  return {
    tableId: 'tbl_1',
    name: 'T',
    workspaceId: 'wsp_1',
    workspaceName: 'W',
    mirrorTable: TABLE,
    header: 'label',
    newestCreatedAt: null,
    pendingSince: null,
    watermark: null,
    rowCount: null,
    serviceRowCount: null,
    lastSyncAt: null,
    verifiedAt: null,
    verify: null,
    maxStaleMs: null,
    ...NAMES,
    pass: {
      mode: 'full',
      cursor: 'c1',
      startedAt: '2026-01-01T00:00:00.000Z',
      top: null,
      oldest: null,
      requests: 1,
      rows: 0,
      inserted: 0,
      updated: 0,
      unfit: 0,
      ...pass,
    },
  };
}

export const row = (id: string, updatedAt: string, n: number): TypedValue[] => [id, '2026-01-01T00:00:00.000Z', updatedAt, n];

export async function contents(): Promise<Array<Record<string, unknown>>> {
  const reader = await db.connection.runAndReadAll(`SELECT "_id", "_updatedAt"::VARCHAR AS u, n FROM ${TABLE} ORDER BY "_id"`);
  return reader.getRowObjectsJS();
}

export async function passIds(): Promise<string[]> {
  const reader = await db.connection.runAndReadAll(`SELECT row_id FROM _tds_pass ORDER BY row_id`);
  return reader.getRowObjectsJS().map((each) => String(each.row_id));
}

export async function writeRows(writer: MirrorWriter, rows: TypedValue[][], s: TableState, rewrite: boolean): Promise<GroupCounts> {
  await writer.append(rows);
  return writer.write(s, rewrite);
}

/**
 * The test's mirror opened again as another file, with `options` (a memory limit…), the table made anew;
 * `same`: the same file as it is (DuckDB then has nothing of it in memory).
 */
export async function reopenWriterDb(options: Omit<Parameters<typeof openMirror>[1], 'readOnly'>, same = false): Promise<void> {
  db.close();
  db = await openMirror(join(dir, same ? 'mirror.duckdb' : 'small.duckdb'), { ...options, readOnly: false });
  if (!same) await makeTable();
}
