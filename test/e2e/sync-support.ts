import { afterEach, expect } from 'vitest';
import type { EmulatorOptions } from '../../src/emulator/index.js';
import {
  everyTypeCells,
  expectMirrorEqualsExport,
  exportRows,
  mirrorBench,
  mirrorRows,
  typesByKey,
  type MirrorBench,
} from '../mirror/helpers.js';

// What the sync tests share: a bench per test (closed after it), rows of every type added through the
// admin route, `tds sync --json` read, and the mirror compared with a fresh export of the service.

export const DAY = 86_400_000;

/** An ISO date-time `ms` before now. */
export const ago = (ms: number): string => new Date(Date.now() - ms).toISOString();

/** Opens a bench for the test that calls it; each is closed after its test. */
export function benchPerTest(): (options?: EmulatorOptions) => Promise<MirrorBench> {
  const open: MirrorBench[] = [];
  afterEach(async () => {
    for (const bench of open.splice(0)) await bench.close();
  });
  return async (options) => {
    const bench = await mirrorBench(options);
    open.push(bench);
    return bench;
  };
}

export interface EveryTypeRows {
  count: number;
  /** The first row's number (everyTypeCells), the others after it. */
  from: number;
  /** How long before now row k (0-based) was created; default now. */
  createdAgoMs?: (k: number) => number;
}

/** Rows of every column type added through the admin route; their IDs in order. */
export async function addEveryTypeRows(
  bench: MirrorBench,
  tableId: string,
  { count, from, createdAgoMs }: EveryTypeRows,
): Promise<string[]> {
  const rows = Array.from({ length: count }, (_, k) => ({
    cells: everyTypeCells(from + k),
    ...(createdAgoMs ? { createdAt: ago(createdAgoMs(k)) } : {}),
  }));
  const created = await bench.admin<{ rows: Array<{ id: string }> }>('POST', `/tables/${tableId}/rows`, { rows });
  return created.rows.map((row) => row.id);
}

/** The mirror table equals a fresh export of the service's table, value by value. */
export async function expectMirrorEqualsService(bench: MirrorBench, tableId: string, mirrorTable = 'every_type'): Promise<void> {
  expectMirrorEqualsExport(await mirrorRows(bench, mirrorTable), await exportRows(bench, tableId), await typesByKey(bench, tableId));
}

/** A table's summary in `tds sync --json` (the figures a test reads). */
export type SyncSummary = Record<string, unknown> & { name: string; mirrorTable: string; mode: string; complete: boolean; syncId: number };

/** `tds sync ARGS --json`, which must succeed: the summaries of its tables. */
export async function syncTables(bench: MirrorBench, args: string[]): Promise<SyncSummary[]> {
  const result = await bench.tds(['sync', ...args, '--json']);
  expect(result.code, result.stderr).toBe(0);
  return (JSON.parse(result.stdout) as { tables: SyncSummary[] }).tables;
}

/** How many row reads the emulator answered with 200 since request log entry `since`. */
export function rowReadsSince(bench: MirrorBench, since: number): number {
  return bench.emu.requestLog.slice(since).filter((entry) => entry.bucket === 'rows' && entry.status === 200).length;
}
