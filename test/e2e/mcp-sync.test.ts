import { afterAll, describe, expect, vi } from 'vitest';
import { lockAddress, tryNamedLock } from '../../src/core/process-lock.js';
import { openDatabase } from '../../src/duckdb/engine.js';
import { test as it, type Harness } from '../helpers/emulator-fixture.js';
import { connectMcp, type McpClient, type ToolResult } from './mcp-support.js';

// sync_tables under the real row-read limit: the server spaces its row requests at 60 a minute (its
// TDS_RATE_SCALE is 1, slower than the emulator's limits, never faster), so a 7,000-row table's first
// sync reads 60 pages at once and then waits a minute. Meanwhile: a second sync is refused, search_rows
// waits its turn within the same limit, and the client goes away: the server interrupts the sync,
// leaves the mirror consistent and ends; the command line's next sync (at the suite's scale) completes the table.

const ROWS = 7000;
/** row requests a minute */
const LIMIT = 60;
let harness: Harness;
let mcp: McpClient;

const rowRequests = (): unknown[] => harness.emu.requestLog.filter((entry) => entry.bucket === 'rows');
const generatedId = (): string => harness.emu.requestLog.find((entry) => entry.bucket === 'rows')!.path.split('/')[3]!;

/** Resolves once `condition` holds (checked every few ms: it watches the emulator's request log); fails after 20 s. */
async function until(condition: () => boolean, what: string): Promise<void> {
  await vi.waitFor(() => expect(condition(), what).toBe(true), { timeout: 20_000, interval: 10 });
}

it.beforeAll(async ({ openForFile }) => {
  harness = await openForFile({ rows: ROWS });
  // the server unscaled: its row reads wait a real minute after the first LIMIT, the client leaves during that wait
  mcp = await connectMcp(harness, { env: { TDS_RATE_SCALE: undefined } });
});
afterAll(() => mcp?.close());

/** Resolves with the first progress notification at or past `rows` rows. */
function progressPast(rows: number): { onprogress: (update: { progress: number }) => void; reached: Promise<void> } {
  let reached = (): void => undefined;
  const promise = new Promise<void>((resolve) => (reached = resolve));
  return { onprogress: (update) => update.progress >= rows && reached(), reached: promise };
}

async function mirrorCounts(db: string): Promise<{ rows: number; ids: number; passRows: number | null; cursor: string | null }> {
  const mirror = await openDatabase(db, { readOnly: true, what: 'the mirror' });
  try {
    const reader = await mirror.connection.runAndReadAll(
      'SELECT (SELECT count(*) FROM generated) AS n, (SELECT count(DISTINCT "_id") FROM generated) AS ids, pass_rows, pass_cursor FROM _tds_tables',
    );
    const row = reader.getRowObjectsJS()[0]!;
    return {
      rows: Number(row.n),
      ids: Number(row.ids),
      passRows: row.pass_rows === null ? null : Number(row.pass_rows),
      cursor: row.pass_cursor === null ? null : String(row.pass_cursor),
    };
  } finally {
    mirror.close();
  }
}

describe('sync_tables: one at a time, and a client that goes away mid-sync', () => {
  it('is a tool error naming it while another sync holds the mirror', async () => {
    // the lock every sync takes on the mirror (a sync --follow holds it for as long as it runs)
    const other = await tryNamedLock(`tds sync ${lockAddress(harness.db)}`);
    expect(other).toBeDefined();
    let result: ToolResult;
    try {
      result = await mcp.call('sync_tables', { tables: ['Generated'] });
    } finally {
      await other!.release();
    }
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(
      new RegExp(`^tds: the mirror ${harness.db} is being synced by PID ${process.pid}\\b.*\\nhint: one sync at a time`),
    );
  });

  it('refuses a second sync while one runs; the client leaving interrupts it, the mirror consistent', async () => {
    const progress = progressPast(1);
    const first = mcp.call('sync_tables', { tables: ['Generated'] }, { onprogress: progress.onprogress, timeout: 600_000 });
    const firstSettled = first.catch((error: unknown) => error);
    await progress.reached;

    const second = await mcp.call('sync_tables', {});
    expect(second.isError).toBe(true);
    expect(second.text).toMatch(/^tds: a sync is already running in this server \(Generated\) since \S+\nhint: wait until the sync ends/);
    const listed = await mcp.call('list_tables');
    expect(listed.structured!.notes).toContain(
      `the mirror ${harness.db} is being synced by this server: its tables show once the sync ends`,
    );

    // the sync has taken the whole row-read limit (60 a minute): search_rows waits its turn behind it
    await until(() => rowRequests().length >= LIMIT, `${LIMIT} row requests`);
    const leads = mcp.call('search_rows', { table: 'Leads' }).catch((error: unknown) => error);
    await until(
      () => harness.emu.requestLog.some((entry) => /\/tables\/[^/]+\/schema/.test(entry.path) && !entry.path.includes(generatedId())),
      "search_rows's schema request",
    );

    await mcp.client.close();
    expect(await firstSettled).toBeInstanceOf(Error);
    expect(await leads).toBeInstanceOf(Error);
    expect(rowRequests().length).toBe(LIMIT);
    expect(harness.emu.requestLog.filter((entry) => entry.status === 429)).toEqual([]);
    expect(mcp.stderr()).toMatch(/tds mcp: stopping: the client closed the connection; interrupting 2 running calls\n/);
    expect(mcp.stderr()).toMatch(/tds mcp: stopped\n$/);

    const counts = await mirrorCounts(harness.db);
    // the pass saved with its rows: those of the groups written (the first page is written at once)
    expect(counts.rows).toBeGreaterThan(0);
    expect(counts.rows).toBeLessThan(ROWS);
    expect(counts.ids).toBe(counts.rows);
    expect(counts.passRows).toBe(counts.rows);
    expect(counts.cursor).not.toBeNull();

    const next = await harness.tds(['sync']);
    expect(next.code, next.stderr).toBe(0);
    expect(await mirrorCounts(harness.db)).toMatchObject({ rows: ROWS, ids: ROWS, passRows: null, cursor: null });
  });
});
