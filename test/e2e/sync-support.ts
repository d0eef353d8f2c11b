import { expect } from 'vitest';
import { addRows, makeTable, plainFields } from '../helpers/admin-tables.js';
import type { RunResult } from '../helpers/cli.js';
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

/**
 * A table "Old Rows" of one text field (Name), `count` rows created ten days ago a minute apart, mirrored by a first
 * sync: its ID and the rows' IDs; `add(n)` adds n rows now. For tests of verification and of who gets into the mirror
 * while a follower writes it, which its columns do not change (a page of the every-type table costs a follower
 * several times more to write).
 */
export async function syncedNarrowTable(
  harness: Harness,
  count: number,
): Promise<{ id: string; ids: string[]; add: (rows: number) => Promise<unknown> }> {
  const { id } = await makeTable(harness, 'Old Rows', plainFields('Name text'));
  const rows = (n: number, agoMs: (k: number) => number) =>
    Array.from({ length: n }, (_, k) => ({ cells: { Name: `Row ${k}` }, createdAt: ago(agoMs(k)) }));
  const ids = await addRows(
    harness,
    id,
    rows(count, (k) => 10 * DAY - k * 60_000),
  );
  await syncTables(harness, [id]);
  return {
    id,
    ids,
    add: (n) =>
      addRows(
        harness,
        id,
        rows(n, () => 0),
      ),
  };
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

/** A `tds sync --follow …` run in this process: what it wrote so far, and `stop()`, Ctrl-C's interrupt, which resolves to how it ended. */
export interface InProcessFollower {
  stdout(): string;
  stderr(): string;
  stop(): Promise<RunResult>;
}

/**
 * Starts `tds ARGS` (a follower) in this process, for tests where its streams tell all. A follower whose signal
 * is the point, or whose mirror the test reads while it runs, is spawned (harness.spawn): DuckDB's lock keeps
 * out the readers of other processes only, and a read in this process may meet a page half written.
 */
export function followInProcess(harness: Harness, args: string[]): InProcessFollower {
  const interrupt = new AbortController();
  let written: { stdout(): string; stderr(): string } = { stdout: () => '', stderr: () => '' };
  const ended = harness.tds(args, { interrupt: interrupt.signal, output: (output) => (written = output), timeoutMs: 600_000 });
  return {
    stdout: () => written.stdout(),
    stderr: () => written.stderr(),
    stop: () => {
      interrupt.abort();
      return ended;
    },
  };
}

/** A `--changes` record as the freshness tests read it: its kind of change, row ID and sync. */
export interface ChangeLine {
  change: string;
  _id: string;
  syncId: number;
}

/** The `--changes` records a follower printed (each line whole). */
export const changeLines = (stdout: string): ChangeLine[] =>
  stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as ChangeLine);

/** The row IDs of the records of one kind of change, sorted. */
export const idsOfChange = (records: readonly ChangeLine[], change: string): string[] =>
  records
    .filter((record) => record.change === change)
    .map((record) => record._id)
    .sort();
