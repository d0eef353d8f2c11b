import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, vi } from 'vitest';
import { everyTypeTable, exportRows, mirrorRows } from '../mirror/helpers.js';
import { TDS_BIN } from '../helpers/cli.js';
import { RATE_SCALE } from '../helpers/rate-scale.js';
import { test as it, type Harness } from '../helpers/emulator-fixture.js';
import { sqlJson } from '../helpers/sql-json.js';
import type { SpawnedTds } from '../helpers/spawn-tds.js';
import type { RequestLogEntry } from '../../src/emulator/index.js';
import { listings, rowReads, verifiedAfter, verifiedAt, verifying } from './verification-waits.js';
import {
  addEveryTypeRows,
  changeLines,
  DAY,
  expectMirrorEqualsService,
  followInProcess,
  idsOfChange,
  syncedNarrowTable,
  syncTables,
  type ChangeLine,
} from './sync-support.js';

// Freshness (issue 30), the verification's hard cases: rows with equal creation times across a page
// edge, rows that arrive through the webhook intake while a verification runs, a re-run of old rows,
// the one "too large" message, MCP queries against a followed mirror, and whole lines on SIGTERM.

type InProcessFollower = ReturnType<typeof followInProcess>;

/** Whether DuckDB opens the file read-only at once, as a client of its own does: no wait, no retry. */
async function opensReadOnly(path: string): Promise<boolean> {
  const instance = await DuckDBInstance.create(path, { access_mode: 'READ_ONLY' }).catch(() => undefined);
  instance?.closeSync();
  return instance !== undefined;
}

/** Each row read answered 429 whose retry went through and was followed by another read: when those two came. */
function afterLimited(log: readonly RequestLogEntry[]): { retriedAt: number; nextAt: number }[] {
  const found: { retriedAt: number; nextAt: number }[] = [];
  for (const [i, entry] of log.entries()) {
    if (entry.status !== 429) continue;
    const retried = log.findIndex((later, j) => j > i && later.status === 200);
    const next = log[retried + 1];
    if (retried >= 0 && next) found.push({ retriedAt: log[retried]!.at, nextAt: next.at });
  }
  return found;
}

/** Stops a follower: Ctrl-C's interrupt in this process, SIGINT to a process. */
async function stop(follow: SpawnedTds | InProcessFollower): Promise<void> {
  if ('stop' in follow) {
    await follow.stop();
    return;
  }
  follow.child.kill('SIGINT');
  await follow.ended;
}

/** A table of `count` rows created ten days ago, a minute apart, mirrored by a first sync: its ID and the rows' IDs. */
async function syncedOldTable(harness: Harness, count: number): Promise<{ id: string; ids: string[] }> {
  const table = await everyTypeTable(harness);
  const ids = await addEveryTypeRows(harness, table.id, { count, from: 1, createdAgoMs: (k) => 10 * DAY - k * 60_000 });
  await syncTables(harness, [table.id]);
  return { id: table.id, ids };
}

const FOLLOW = ['sync', '--follow', '--every', '0.1', '--changes'];

/**
 * Follows with --changes (--max-stale 2m) until a verification of a table of `pages` pages that began after `first`
 * is complete; the records printed. A follower whose mirror the test reads meanwhile is a process: DuckDB's lock
 * keeps out readers of other processes only.
 */
async function followUntilVerified(harness: Harness, first: number, pages: number): Promise<ChangeLine[]> {
  const since = harness.emu.requestLog.length;
  const follow = harness.spawn([...FOLLOW, '--max-stale', '2m']);
  try {
    await verifiedAfter(harness, first, { since, pages });
  } finally {
    await stop(follow);
  }
  return changeLines(follow.stdout());
}

describe('verification: the hard cases', () => {
  it('rows with equal creation times across a page edge: none lost, none deleted wrongly, the deleted and edited ones once', async ({
    open,
  }) => {
    const harness = await open();
    const table = await everyTypeTable(harness);
    // rows 120..180 share one creation time: the first page (the 100 newest) ends among them
    const same = (k: number): number => (k >= 120 && k <= 180 ? 10 * DAY - 150 * 60_000 : 10 * DAY - k * 60_000);
    const ids = await addEveryTypeRows(harness, table.id, { count: 250, from: 1, createdAgoMs: same });
    await syncTables(harness, [table.id]);
    const first = await verifiedAt(harness);
    await harness.admin('POST', `/tables/${table.id}/rows/delete`, { ids: [ids[130], ids[175]] });
    await harness.admin('PATCH', `/tables/${table.id}/rows/${ids[140]}`, { cells: { Name: 'Edited at the edge' } });
    await harness.admin('PATCH', `/tables/${table.id}/rows/${ids[165]}`, { cells: { Name: 'Edited at the edge too' } });

    // 250 rows: 3 pages
    const printed = await followUntilVerified(harness, first, 3);
    expect(idsOfChange(printed, 'deleted')).toEqual([ids[130], ids[175]].sort());
    expect(idsOfChange(printed, 'updated')).toEqual([ids[140], ids[165]].sort());
    await expectMirrorEqualsService(harness, table.id);
    const history = await sqlJson<{ _id: string; _change: string }>(harness, 'SELECT _id, _change FROM every_type__history ORDER BY _id');
    expect(history).toHaveLength(4);
  }, 120_000);

  it('rows arriving through the webhook intake during a verification: not judged deleted, in the mirror afterwards, added once', async ({
    open,
  }) => {
    // the intake holds posted rows a while (their createdAt is the post's time): a page read meanwhile lacks them
    const harness = await open({ ingestDelayMs: 400 });
    const created = await harness.admin<{ table: { id: string }; webhookUrl: string }>('POST', '/tables', {
      workspace: 'Sales',
      name: 'Inbox',
      webhook: true,
      fields: [{ label: 'Email', type: 'email', mapKey: 'email' }],
    });
    const tableId = created.table.id;
    const rows = Array.from({ length: 250 }, (_, k) => ({
      cells: { Email: `old${k}@x.example` },
      createdAt: new Date(Date.now() - 10 * DAY + k * 60_000).toISOString(),
    }));
    await harness.admin('POST', `/tables/${tableId}/rows`, { rows });
    await syncTables(harness, [tableId]);
    const first = await verifiedAt(harness);

    const since = harness.emu.requestLog.length;
    const follow = harness.spawn([...FOLLOW, '--max-stale', '3m']);
    const posted: string[] = [];
    const addedPrinted = (): number => changeLines(follow.stdout()).filter((record) => record.change === 'added').length;
    try {
      await verifying(harness, since);
      for (let batch = 0; batch < 4; batch += 1) {
        // a batch after each page the follower requests: the rows arrive at different points of its passes
        const before = rowReads(harness, 0).length;
        await vi.waitFor(() => expect(rowReads(harness, 0).length).toBeGreaterThan(before), { timeout: 30_000, interval: 20 });
        const emails = Array.from({ length: 5 }, (_, k) => `new${batch}-${k}@x.example`);
        const response = await fetch(created.webhookUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(emails.map((email) => ({ email }))),
        });
        expect(response.status).toBe(200);
        posted.push(...emails);
      }
      // a row's record is printed once the page that brought it is written: the mirror is read after the 20
      await vi.waitFor(() => expect(addedPrinted(), follow.stderr()).toBeGreaterThanOrEqual(20), { timeout: 30_000, interval: 20 });
      await vi.waitFor(
        async () => expect((await sqlJson<{ n: number }>(harness, 'SELECT count(*)::INT AS n FROM inbox'))[0]!.n).toBe(270),
        {
          timeout: 30_000,
          interval: 50,
        },
      );
      // and a whole verification after them judges none of them gone either (270 rows: 3 pages)
      await verifiedAfter(harness, Math.max(first, await verifiedAt(harness)), { since: harness.emu.requestLog.length, pages: 3 });
    } finally {
      await stop(follow);
    }
    const printed = changeLines(follow.stdout());
    expect(printed.filter((record) => record.change === 'deleted')).toEqual([]);
    const added = printed.filter((record) => record.change === 'added');
    expect(added).toHaveLength(20);
    expect(new Set(added.map((record) => record._id)).size).toBe(20);
    expect((await mirrorRows(harness, 'inbox')).map((row) => row._id)).toEqual((await exportRows(harness, tableId)).map((row) => row._id));
  }, 120_000);

  it('a re-run of old rows (the re-run route) reaches the mirror, T__history and --changes once each', async ({ open }) => {
    const harness = await open();
    const table = await syncedOldTable(harness, 250);
    const { ids } = table;
    const first = await verifiedAt(harness);
    const rerun = [ids[3], ids[120], ids[240]];
    expect(await harness.admin('POST', `/tables/${table.id}/actions/rerun`, { field: 'Enrich', rows: rerun })).toEqual({ queued: 3 });

    const printed = await followUntilVerified(harness, first, 3);
    expect(printed.map((record) => [record.change, record._id]).sort()).toEqual(rerun.map((id) => ['updated', id]).sort());
    const history = await sqlJson<{ _id: string; _change: string }>(harness, 'SELECT _id, _change FROM every_type__history ORDER BY _id');
    expect(history).toEqual(rerun.sort().map((id) => ({ _id: id, _change: 'updated' })));
    await expectMirrorEqualsService(harness, table.id);
  }, 120_000);
});

describe('verification: a re-run still running', () => {
  it('an old row found pending by a verification page is left to verification: the rounds after a new row read no page down to it', async ({
    open,
  }) => {
    // re-runs stay queued for the whole test, as on the service while a long run goes on
    const harness = await open({ actionDelayMs: 600_000 });
    const created = await harness.admin<{ table: { id: string } }>('POST', '/tables', {
      workspace: 'Sales',
      name: 'Runs',
      fields: [
        { label: 'Email', type: 'email' },
        { label: 'Enrich', type: 'action', action: { from: 'Email', derive: 'domain' } },
      ],
    });
    const tableId = created.table.id;
    const row = (k: number, agoMs: number) => ({
      cells: { Email: `u${k}@x.example`, Enrich: 'x.example' },
      createdAt: new Date(Date.now() - agoMs).toISOString(),
    });
    const add = async (rows: Array<ReturnType<typeof row>>): Promise<string[]> =>
      (await harness.admin<{ rows: Array<{ id: string }> }>('POST', `/tables/${tableId}/rows`, { rows })).rows.map((one) => one.id);
    const ids = await add(Array.from({ length: 250 }, (_, k) => row(k, 10 * DAY + k * 60_000)));
    await syncTables(harness, [tableId]);
    // on the second page: a round's incremental pass reads only the first
    await harness.admin('POST', `/tables/${tableId}/actions/rerun`, { rows: [ids[150]] });
    // 3 pages, --max-stale 10m: a page every 0.9 s here (its verified_at ages a pass and a wait as long again)
    const follow = followInProcess(harness, [...FOLLOW, '--max-stale', '10m']);
    const printedIds = (): string[] => changeLines(follow.stdout()).map((record) => record._id);
    /** The syncs of the table by rounds since `after` (verification pages are syncs of their own, mode verify). */
    const roundsThatReadSince = async (after: string): Promise<number> =>
      (
        await sqlJson<{ n: number }>(
          harness,
          `SELECT count(*)::INT AS n FROM _tds_syncs WHERE mode <> 'verify' AND started_at > '${after}'::TIMESTAMPTZ`,
        )
      )[0]!.n;
    // when the new row was seen printed: the follower runs in this process, on its clock (the syncs' started_at),
    // and the mirror is read once it has stopped
    let freshSeenAt = '';
    try {
      await vi.waitFor(() => expect(printedIds()).toContain(ids[150]), { timeout: 60_000, interval: 20 });
      // a new row moves the count: a round reads the newest page and ends its pass with the re-run row still queued
      const [fresh] = await add([row(1000, 0)]);
      await vi.waitFor(() => expect(printedIds()).toContain(fresh), { timeout: 30_000, interval: 20 });
      freshSeenAt = new Date().toISOString();
      // five rounds after it
      const since = harness.emu.requestLog.length;
      await vi.waitFor(() => expect(listings(harness, since)).toBeGreaterThanOrEqual(5), { timeout: 30_000, interval: 20 });
    } finally {
      await stop(follow);
    }
    // had the watermark gone down to the re-run row, every round would read the table (two pages) until it
    // settles; the rows read after the new row are verification's pages alone
    expect(await roundsThatReadSince(freshSeenAt), follow.stderr()).toBe(0);
    const state = await sqlJson<{ p: string | null }>(harness, 'SELECT pending_since::VARCHAR AS p FROM _tds_tables');
    expect(state).toEqual([{ p: null }]);
  }, 120_000);
});

describe('verification: what it says and who reads meanwhile', () => {
  it('tables too large for --max-stale at the share: said once, with the staleness it can keep', async ({ open }) => {
    const harness = await open();
    await syncedNarrowTable(harness, 450);
    const since = harness.emu.requestLog.length;
    // 5 pages at 1 % of 60 a minute: a page every 100 s of the service; with the first round's row
    // request out of the same share (its schema read is no row request), every page once in 600 s
    const follow = followInProcess(harness, ['sync', '--follow', '--every', '0.1', '--max-stale', '1m', '--max-share', '0.01']);
    try {
      await vi.waitFor(() => expect(listings(harness, since)).toBeGreaterThanOrEqual(10), { timeout: 30_000, interval: 20 });
    } finally {
      await stop(follow);
    }
    const said = follow.stderr().match(/too large for --max-stale.*/g) ?? [];
    expect(said).toEqual([
      "too large for --max-stale 60 s at --max-share 0.01: their 5 pages, with the rounds' 1 row request meanwhile, are verified every 10 min, so changes to old rows reach the mirror within 10 min",
    ]);
  }, 60_000);

  it("DuckDB's own client, opened read-only while sync --follow verifies and reads new rows, gets in whenever the follower waits for the service", async ({
    open,
  }) => {
    // Each request of the follower (a round's listing, a schema, a round's or a verification's page) is held
    // on its arrival until a DuckDB client that neither waits nor retries (what `duckdb -readonly FILE` does)
    // has tried the file: a follower that holds the file only while it writes is not holding it then, however
    // slow the machine. (One that kept it attached past a write, or requested a round's next page while it
    // wrote the last, was refused at most of them.)
    const tries: { path: string; opened: boolean }[] = [];
    let trying: string | undefined;
    const harness = await open({
      onArrival: async ({ path }) => {
        if (trying !== undefined) tries.push({ path, opened: await opensReadOnly(trying) });
      },
    });
    const { id, ids, add } = await syncedNarrowTable(harness, 450);
    await harness.admin('PATCH', `/tables/${id}/rows/${ids[10]}`, { cells: { Name: 'Edited while DuckDB reads' } });
    const pageTries = (): number => tries.filter((one) => /\/rows(\?|$)/.test(one.path)).length;
    const printed = (change: string): string[] =>
      changeLines(follow.stdout())
        .filter((record) => record.change === change)
        .map((record) => record._id);
    // 5 pages, --max-stale 5m: a page about every 0.27 s (a pass and a wait as long again); each request waits
    // for DuckDB's try however fast they come. The follower is a process: DuckDB's lock is between processes.
    const follow = harness.spawn([...FOLLOW, '--max-stale', '5m']);
    trying = harness.db;
    try {
      // the first round's page, then a whole verification (the edited row is on its last page)
      await vi.waitFor(
        () => {
          expect(printed('updated')).toContain(ids[10]);
          expect(pageTries()).toBeGreaterThanOrEqual(6);
        },
        { timeout: 60_000, interval: 50 },
      );
      // a round that reads 3 pages of new rows, written as they come
      await add(250);
      await vi.waitFor(() => expect(printed('added')).toHaveLength(250), { timeout: 60_000, interval: 50 });
    } finally {
      trying = undefined;
      await stop(follow);
    }
    expect(pageTries()).toBeGreaterThanOrEqual(9);
    expect(tries.filter((one) => !one.opened).map((one) => one.path)).toEqual([]);
  }, 120_000);

  it('an MCP query_sql against a mirror that sync --follow is following and verifying succeeds every time', async ({ open }) => {
    const harness = await open();
    const { id, ids } = await syncedNarrowTable(harness, 450);
    await harness.admin('PATCH', `/tables/${id}/rows/${ids[10]}`, { cells: { Name: 'Edited while MCP reads' } });
    const since = harness.emu.requestLog.length;
    // the follower in this process, the MCP server a process: DuckDB's lock is between the two
    const follow = followInProcess(harness, [...FOLLOW, '--max-stale', '5m']);
    const client = new Client({ name: 'tds-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [TDS_BIN, 'mcp'], env: harness.env, cwd: harness.dir, stderr: 'pipe' }),
    );
    let succeeded = 0;
    const editPrinted = (): boolean => changeLines(follow.stdout()).some((record) => record._id === ids[10]);
    try {
      // a verification under way: its second page requested (a page with a cursor; the rounds read none here),
      // so its first is written. The test reads the request log, not the mirror, while this process writes it
      await vi.waitFor(() => expect(rowReads(harness, since).some((entry) => entry.path.includes('cursor='))).toBe(true), {
        timeout: 30_000,
        interval: 20,
      });
      // queries from the verification's first page until it has brought the edited row (on its last page):
      // five at least, forty at most
      for (let k = 0; k < 5 || (k < 40 && !editPrinted()); k += 1) {
        const result = await client.callTool({ name: 'query_sql', arguments: { sql: 'SELECT count(*) AS n FROM old_rows' } });
        const text = (result.content as Array<{ text?: string }>).map((block) => block.text ?? '').join('');
        expect(result.isError, text).not.toBe(true);
        succeeded += 1;
      }
      await vi.waitFor(() => expect(editPrinted()).toBe(true), { timeout: 60_000, interval: 50 });
    } finally {
      await client.close();
      await stop(follow);
    }
    expect(succeeded).toBeGreaterThanOrEqual(5);
    const verifyPages = await sqlJson<{ n: number }>(harness, "SELECT count(*)::INT AS n FROM _tds_syncs WHERE mode = 'verify'");
    expect(verifyPages[0]!.n).toBeGreaterThan(1);
  }, 120_000);

  it.for([
    { option: '--json', lines: 3, member: 'tables' },
    { option: '--changes', lines: 150, member: 'change' },
  ])(
    'SIGTERM: what $option prints on stdout is whole lines, every one',
    { timeout: 120_000 },
    async ({ option, lines, member }, { open }) => {
      const harness = await open();
      const table = await syncedOldTable(harness, 50);
      const follow = harness.spawn(['sync', '--follow', '--every', '0.1', option, '--max-stale', 'off']);
      const printedLines = (): number => follow.stdout().split('\n').length - 1;
      let from = 1000;
      const addBatch = async (): Promise<number> => {
        const before = printedLines();
        await addEveryTypeRows(harness, table.id, { count: 100, from });
        from += 100;
        return before;
      };
      // a batch of rows at a time, the next once the follower has printed what the last brought: rows
      // added faster than a loaded machine's follower syncs them would keep its round from ever ending
      while (printedLines() <= lines) {
        const before = await addBatch();
        await vi.waitFor(() => expect(printedLines(), follow.stderr()).toBeGreaterThan(before), { timeout: 60_000, interval: 10 });
      }
      // and one more, so that the signal meets a follower syncing it (with --changes, printing it)
      const before = await addBatch();
      if (option === '--changes') await vi.waitFor(() => expect(printedLines()).toBeGreaterThan(before), { timeout: 60_000, interval: 5 });
      follow.child.kill('SIGTERM');
      const ended = await follow.ended;
      expect(ended.code, follow.stderr()).toBe(143);
      const out = follow.stdout();
      expect(out.endsWith('\n')).toBe(true);
      const printed = out.split('\n').filter(Boolean);
      for (const line of printed) expect(() => JSON.parse(line), line).not.toThrow();
      expect(printed.every((line) => member in JSON.parse(line))).toBe(true);
    },
  );
});

describe("verification's share of the row-read limit", () => {
  it("verification reads at most --max-share of the row-read limit, the rounds' row requests counted in (from the request log)", async ({
    open,
  }) => {
    const harness = await open();
    const table = await syncedNarrowTable(harness, 450);
    const since = harness.emu.requestLog.length;
    const share = 0.05;
    const minute = 60_000 / RATE_SCALE;
    /** One request's worth of the share: 3 a minute of the 60 at 0.05, one every 20 s of the service (200 ms here). */
    const shareMs = minute / (60 * share);
    const reads = (): typeof harness.emu.requestLog => harness.emu.requestLog.slice(since).filter((entry) => entry.bucket === 'rows');
    // --max-stale asks far more than the share allows (5 pages in 1 s): verification reads at the share
    const follow = followInProcess(harness, ['sync', '--follow', '--every', '0.1', '--max-stale', '1s', '--max-share', String(share)]);
    try {
      // verification alone: in any minute of the service, at most s × 60 + 1 row requests
      await vi.waitFor(() => expect(reads().length).toBeGreaterThanOrEqual(8), { timeout: 60_000, interval: 20 });
      const alone = reads();
      const busiest = Math.max(
        ...alone.map((entry) => alone.filter((other) => other.at >= entry.at && other.at < entry.at + minute).length),
      );
      expect(busiest).toBeLessThanOrEqual(share * 60 + 1);
      // rounds read rows too: a new row at a time, each read by a round (or a verification page) before the next;
      // then verification pages again, after the rounds' reads (counted in their spacing)
      const cursorPages = (): number => reads().filter((entry) => entry.path.includes('cursor=')).length;
      for (let k = 0; k < 6; k += 1) {
        const before = reads().length;
        await table.add(1);
        await vi.waitFor(() => expect(reads().length).toBeGreaterThan(before), { timeout: 30_000, interval: 5 });
      }
      const afterRounds = cursorPages();
      await vi.waitFor(() => expect(cursorPages()).toBeGreaterThanOrEqual(afterRounds + 2), { timeout: 30_000, interval: 20 });
    } finally {
      await stop(follow);
    }
    // each request, a round's or a page's, takes one share's spacing: between two verification pages (later
    // pages of a pass, with a cursor), no more requests than the time between them allows (and one more: a
    // request's delay on its way)
    const all = reads();
    const pages = all.map((entry, k) => ({ at: entry.at, k })).filter((_, k) => all[k]!.path.includes('cursor='));
    expect(pages.length).toBeGreaterThanOrEqual(6);
    for (const [i, from] of pages.entries()) {
      for (const to of pages.slice(i + 1)) expect(to.k - from.k).toBeLessThanOrEqual((to.at - from.at) / shareMs + 1);
    }
  }, 120_000);

  it('a verification page that met a 429 (another client over the limit) puts the next page off by twice the spacing', async ({ open }) => {
    const harness = await open({ readFaults: '429:0.15', faultSeed: 7 });
    await syncedNarrowTable(harness, 450);
    const since = harness.emu.requestLog.length;
    // 5 pages, --max-stale 5m: a page every 27 s of the service (270 ms here): the table's pass and a wait as long again
    const spacing = (0.9 * 300_000) / (5 + 5) / RATE_SCALE;
    const follow = followInProcess(harness, ['sync', '--follow', '--every', '0.1', '--max-stale', '5m', '--max-share', '0.5']);
    // a faulted request is answered before its bucket is known: the path says it is a row read
    const reads = (): typeof harness.emu.requestLog =>
      harness.emu.requestLog.slice(since).filter((entry) => entry.method === 'GET' && /^\/v1\/tables\/[^/]+\/rows/.test(entry.path));
    try {
      await vi
        .waitFor(() => expect(reads().filter((entry) => entry.status === 429).length).toBeGreaterThanOrEqual(2), {
          timeout: 60_000,
          interval: 50,
        })
        .catch((error: unknown) => {
          throw new Error(`${String(error)}\n${follow.stderr()}`);
        });
      // until a page that met a 429 went through, and the page after it came
      await vi.waitFor(() => expect(afterLimited(reads()).length).toBeGreaterThan(0), { timeout: 30_000, interval: 20 });
    } finally {
      await stop(follow);
    }
    for (const { retriedAt, nextAt } of afterLimited(reads())) expect(nextAt - retriedAt).toBeGreaterThanOrEqual(2 * spacing);
  }, 90_000);
});
