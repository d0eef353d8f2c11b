import { describe, expect } from 'vitest';
import { TdsError } from '../../src/core/errors.js';
import { ApiClient } from '../../src/http/client.js';
import { serviceTimings } from '../../src/http/rate-limiter.js';
import { runSync, type SyncRequest } from '../../src/mirror/sync-run.js';
import { addRows, makeTable, NAME_AND_NUMBER } from '../helpers/admin-tables.js';
import { memoryContext } from '../helpers/context.js';
import { test as it, type Harness } from '../helpers/emulator-fixture.js';
import { RATE_SCALE } from '../helpers/rate-scale.js';

// Issue 41, case 1: rows are added, a sync is killed midway, more rows are added, another is killed,
// and so on; the sync after them must end with every row of the service, or say it has not (exit 6).
// The kills are deterministic: each sync runs in this process on a client whose row reads stop it, as
// Ctrl-C does, when its page request after `pages` is made (its first page is written before that).

const OLD_ROWS = 200;
const ADDED = 250;

async function plainTable(harness: Harness): Promise<string> {
  const { id } = await makeTable(harness, 'Plain', NAME_AND_NUMBER);
  const at = Date.now() - 86_400_000;
  const rows = Array.from({ length: OLD_ROWS }, (_, i) => ({
    cells: { Name: `old ${i}`, N: i },
    createdAt: new Date(at + i * 1000).toISOString(),
  }));
  await addRows(harness, id, rows);
  return id;
}

const clientOf = (harness: Harness, signal: AbortSignal): ApiClient =>
  new ApiClient({ baseUrl: harness.baseUrl, apiKey: harness.apiKey, timings: serviceTimings(RATE_SCALE), signal });

const syncRequest = (harness: Harness, full = false): SyncRequest => ({
  tables: ['Plain'],
  workspaces: [],
  all: false,
  db: harness.db,
  full,
  json: true,
});

/** `tds sync Plain [--full]` in this process, stopped as Ctrl-C stops it when its row request after `pages` is made. */
async function killedSync(harness: Harness, pages: number, full: boolean): Promise<void> {
  const { ctx, controller } = memoryContext();
  const client = clientOf(harness, ctx.signal);
  const rowsPage = client.rowsPage.bind(client);
  let made = 0;
  client.rowsPage = (...args) => {
    made += 1;
    if (made > pages) controller.abort(new TdsError('INTERRUPTED', 'interrupted'));
    return rowsPage(...args);
  };
  try {
    await expect(runSync(ctx, client, syncRequest(harness, full))).rejects.toMatchObject({ code: 'INTERRUPTED' });
  } finally {
    await client.close();
  }
  expect(made).toBe(pages + 1);
}

const count = async (harness: Harness, sql: string): Promise<number> => {
  const result = await harness.tds(['sql', sql, '--format', 'csv']);
  expect(result.code, result.stderr).toBe(0);
  return Number(result.stdout.trim().split('\n')[1]);
};

describe('tds sync after syncs killed while rows were being added (issue 41)', () => {
  it.for([
    ['incremental', 2],
    ['incremental', 4],
    ['--full', 2],
  ] as const)('%s syncs killed %i times, rows added before each: the next sync brings every row', async ([mode, kills], { open }) => {
    const harness = await open();
    const tableId = await plainTable(harness);
    expect((await harness.tds(['sync', 'Plain'])).code).toBe(0);
    const add = (batch: number): Promise<unknown> =>
      addRows(
        harness,
        tableId,
        Array.from({ length: ADDED }, (_, i) => ({ cells: { Name: `new ${batch}.${i}`, N: i } })),
      );
    for (let kill = 0; kill < kills; kill += 1) {
      await add(kill);
      await killedSync(harness, 2, mode === '--full');
    }
    await add(kills);
    const total = OLD_ROWS + (kills + 1) * ADDED;
    const result = await harness.tds(['sync', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(await count(harness, 'SELECT count(*) FROM plain')).toBe(total);
    expect(await count(harness, 'SELECT row_count FROM _tds_tables')).toBe(total);
    expect(JSON.parse(result.stdout).tables[0]).toMatchObject({ complete: true, missing: 0 });
    // (whether the killed pass had written a page before the kill, and so left a cursor, depends on the machine's
    // speed; the rows and the exit are what is promised either way)
  });

  it('a service that lists more rows than its pages return: the summary says how many are missing, and the sync exits 6', async ({
    open,
  }) => {
    const harness = await open();
    await plainTable(harness);
    const { ctx, stdout } = memoryContext();
    const client = clientOf(harness, ctx.signal);
    // the listing counts 7 rows more than the pages hold, before the pass and after it
    const tables = client.tables.bind(client);
    client.tables = async (...args) => {
      const listed = await tables(...args);
      return { ...listed, tables: listed.tables.map((table) => ({ ...table, rowCount: table.rowCount + 7 })) };
    };
    try {
      const failure = await runSync(ctx, client, syncRequest(harness)).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(TdsError);
      expect((failure as TdsError).exitCode).toBe(6);
      expect((failure as TdsError).message).toMatch(/Plain lacks 7 of its rows that the service lists/);
    } finally {
      await client.close();
    }
    expect(JSON.parse(stdout()).tables[0]).toMatchObject({ mode: 'full', complete: true, missing: 7 });
    expect(await count(harness, 'SELECT count(*) FROM plain')).toBe(OLD_ROWS);
  });

  // simulator seed 4010 (test/sim/histories/resumed-complete-pass-keeps-rows-deleted-since.json)
  it('a first sync killed midway, then rows it had read deleted: the sync that completes its pass finds them gone', async ({ open }) => {
    const harness = await open();
    const tableId = await plainTable(harness);
    await addRows(
      harness,
      tableId,
      Array.from({ length: ADDED }, (_, i) => ({ cells: { Name: `new ${i}`, N: i } })),
    );
    await killedSync(harness, 2, false);
    const read = await harness.tds(['sql', 'SELECT _id FROM plain ORDER BY _createdAt DESC LIMIT 3', '--format', 'csv']);
    const gone = read.stdout.trim().split('\n').slice(1);
    // the first page of a pass is written at once, before the next is asked for
    expect(gone).toHaveLength(3);
    await harness.admin('POST', `/tables/${tableId}/rows/delete`, { ids: gone });
    const result = await harness.tds(['sync', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(
      /plain: the mirror holds 3 more rows than the service lists: rows were deleted since the pass an interrupted sync began read them; reading every row to find them/,
    );
    expect(await count(harness, 'SELECT count(*) FROM plain')).toBe(OLD_ROWS + ADDED - 3);
    expect(await count(harness, `SELECT count(*) FROM plain WHERE _id IN (${gone.map((id) => `'${id}'`).join(', ')})`)).toBe(0);
  });
});
