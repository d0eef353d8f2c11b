import { expect } from 'vitest';
import { addRows } from '../helpers/admin-tables.js';
import type { Harness } from '../helpers/emulator-fixture.js';
import { everyTypeCells, expectMirrorEqualsExport, exportRows, mirrorRows, typesByKey } from '../mirror/helpers.js';

// What the sync tests share: rows of every type added through the
// admin route, `tds sync --json` read, and the mirror compared with a fresh export of the service.

export const DAY = 86_400_000;

/** An ISO date-time `ms` before now. */
export const ago = (ms: number): string => new Date(Date.now() - ms).toISOString();

export interface EveryTypeRows {
  count: number;
  /** The first row's number (everyTypeCells), the others after it. */
  from: number;
  /** How long before now row k (0-based) was created; default now. */
  createdAgoMs?: (k: number) => number;
}

/** Rows of every column type added through the admin route; their IDs in order. */
export async function addEveryTypeRows(harness: Harness, tableId: string, { count, from, createdAgoMs }: EveryTypeRows): Promise<string[]> {
  const rows = Array.from({ length: count }, (_, k) => ({
    cells: everyTypeCells(from + k),
    ...(createdAgoMs ? { createdAt: ago(createdAgoMs(k)) } : {}),
  }));
  return addRows(harness, tableId, rows);
}

/** The mirror table equals a fresh export of the service's table, value by value. */
export async function expectMirrorEqualsService(harness: Harness, tableId: string, mirrorTable = 'every_type'): Promise<void> {
  expectMirrorEqualsExport(await mirrorRows(harness, mirrorTable), await exportRows(harness, tableId), await typesByKey(harness, tableId));
}

/** A table's summary in `tds sync --json` (the figures a test reads). */
export type SyncSummary = Record<string, unknown> & { name: string; mirrorTable: string; mode: string; complete: boolean; syncId: number };

/** `tds sync ARGS --json`, which must succeed: the summaries of its tables. */
export async function syncTables(harness: Harness, args: string[]): Promise<SyncSummary[]> {
  const result = await harness.tds(['sync', ...args, '--json']);
  expect(result.code, result.stderr).toBe(0);
  return (JSON.parse(result.stdout) as { tables: SyncSummary[] }).tables;
}

/** How many row reads the emulator answered with 200 since request log entry `since`. */
export function rowReadsSince(harness: Harness, since: number): number {
  return harness.emu.requestLog.slice(since).filter((entry) => entry.bucket === 'rows' && entry.status === 200).length;
}
