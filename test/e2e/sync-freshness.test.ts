import { describe, expect, vi } from 'vitest';
import { everyTypeTable, exportRows, mirrorRows } from '../mirror/helpers.js';
import { adminRoute, test as it, type Harness, useOpenOfEachTest } from '../helpers/emulator-fixture.js';
import {
  addEveryTypeRows,
  ago,
  changeLines,
  DAY,
  expectMirrorEqualsService,
  followInProcess,
  idsOfChange,
  syncTables,
} from './sync-support.js';
import { holdArrival } from '../helpers/arrival-hold.js';
import { addRows, makeTable, plainFields } from '../helpers/admin-tables.js';

// Freshness (issue 30): deletions found by a plain sync, verified_at and --max-stale, --follow rounds
// that cost one listing and no row request when nothing moved, verification pages that bring edits
// and deletions of old rows into the mirror and --changes once, and a followed mirror that readers read.

const openHarness = useOpenOfEachTest();

async function tablesRow(harness: Harness): Promise<{ verified_at: string | null; row_count: number }> {
  const result = await harness.tds(['sql', 'SELECT verified_at::VARCHAR AS verified_at, row_count FROM _tds_tables', '--format', 'json']);
  expect(result.code, result.stderr).toBe(0);
  return (JSON.parse(result.stdout) as Array<{ verified_at: string | null; row_count: number }>)[0]!;
}

async function oldTable(harness: Harness, count = 250): Promise<{ id: string; ids: string[] }> {
  const table = await everyTypeTable(harness);
  const ids = await addEveryTypeRows(harness, table.id, { count, from: 1, createdAgoMs: (k) => 10 * DAY - k * 60_000 });
  return { id: table.id, ids };
}

/**
 * A table of one text field, `count` rows created `agoMs(k)` before now: for tests of verification's rounds and passes,
 * where only its pages count, not its columns (a page of the every-type table costs the follower a third more).
 */
async function narrowTable(
  harness: Harness,
  name: string,
  count: number,
  agoMs: (k: number) => number,
): Promise<{ id: string; ids: string[] }> {
  const table = await makeTable(harness, name, plainFields('Name text'));
  const rows = Array.from({ length: count }, (_, k) => ({ cells: { Name: `Row ${k}` }, createdAt: ago(agoMs(k)) }));
  return { id: table.id, ids: await addRows(harness, table.id, rows) };
}

const listings = (harness: Harness, since: number): number =>
  harness.emu.requestLog.slice(since).filter((entry) => entry.method === 'GET' && /\/v1\/tables(\?|$)/.test(entry.path)).length;
const rowReads = (harness: Harness, since: number): number =>
  harness.emu.requestLog.slice(since).filter((entry) => entry.bucket === 'rows').length;

describe('tds sync: deletions and verified_at', () => {
  it('a plain sync finds rows deleted on the service by the count, with a full pass in the same sync and one line why', async () => {
    const harness = await openHarness();
    const { id, ids } = await oldTable(harness);
    const [first] = await syncTables(harness, [id]);
    expect(first).toMatchObject({ mode: 'full', deleted: 0 });
    expect(first!.verifiedAt).toEqual(expect.any(String));

    await harness.admin('POST', `/tables/${id}/rows/delete`, { ids: [ids[3], ids[100]] });
    await addEveryTypeRows(harness, id, { count: 1, from: 900 });
    const result = await harness.tds(['sync', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(
      result.stderr.match(
        /every_type: the mirror holds 2 more rows than the service lists: rows were deleted; reading every row to find them/g,
      ),
    ).toHaveLength(1);
    expect(JSON.parse(result.stdout).tables[0]).toMatchObject({ mode: 'full', inserted: 1, deleted: 2, complete: true });
    await expectMirrorEqualsService(harness, id);
    const history = await harness.tds([
      'sql',
      `SELECT _id FROM every_type__history WHERE _change = 'deleted' ORDER BY _id`,
      '--format',
      'json',
    ]);
    expect(JSON.parse(history.stdout).map((row: { _id: string }) => row._id)).toEqual([ids[3], ids[100]].sort());

    // and a sync with nothing deleted stays incremental
    const again = await syncTables(harness, []);
    expect(again[0]).toMatchObject({ mode: 'incremental', deleted: 0 });
  });

  it('--max-stale: a table verified longer ago gets a full pass that says why; off turns it off', async () => {
    const harness = await openHarness();
    const { id, ids } = await oldTable(harness, 120);
    await syncTables(harness, [id]);
    const verified = (await tablesRow(harness)).verified_at;
    expect(verified).not.toBeNull();
    // an old row edited: no count moves, an incremental sync cannot see it
    await harness.admin('PATCH', `/tables/${id}/rows/${ids[5]}`, { cells: { Name: 'Edited long after' } });
    const aged = await harness.tds(['sql', `UPDATE _tds_tables SET verified_at = now() - INTERVAL 2 HOUR`, '--write']);
    expect(aged.code, aged.stderr).toBe(0);

    expect((await syncTables(harness, ['--max-stale', 'off']))[0]).toMatchObject({ mode: 'incremental', updated: 0 });
    expect((await syncTables(harness, ['--max-stale', '3h']))[0]).toMatchObject({ mode: 'incremental', updated: 0 });
    const stale = await harness.tds(['sync', '--max-stale', '90m', '--json']);
    expect(stale.code, stale.stderr).toBe(0);
    expect(stale.stderr).toMatch(/every_type: last verified 2 h 0 min ago \(\S+\): reading every row \(--max-stale\)/);
    const summary = JSON.parse(stale.stdout).tables[0];
    expect(summary).toMatchObject({ mode: 'full', updated: 1 });
    // renewed from the aged value (2 h back); the service's clock has whole seconds, so a fast run may see the first sync's
    expect(Date.parse(summary.verifiedAt)).toBeGreaterThanOrEqual(Date.parse(verified!));
    await expectMirrorEqualsService(harness, id);
    // the config key says the same
    expect((await harness.tds(['config', 'set', 'max-stale', '1h'])).code).toBe(0);
    expect((await harness.tds(['sql', `UPDATE _tds_tables SET verified_at = now() - INTERVAL 2 HOUR`, '--write'])).code).toBe(0);
    expect((await syncTables(harness, []))[0]).toMatchObject({ mode: 'full' });
  });
});

describe("the emulator's re-run route", () => {
  it('sends the action cells of the rows named (or all) back to queued, moving updatedAt: a pass over every row brings them', async () => {
    const harness = await openHarness();
    const { id, ids } = await oldTable(harness, 30);
    await syncTables(harness, [id]);
    expect(await harness.admin('POST', `/tables/${id}/actions/rerun`, { field: 'Enrich', rows: [ids[2], ids[4]] })).toEqual({ queued: 2 });
    const [some] = await syncTables(harness, ['--full']);
    expect(some).toMatchObject({ mode: 'full', updated: 2 });
    expect(await harness.admin('POST', `/tables/${id}/actions/rerun`, {})).toEqual({ queued: 30 });
    const [all] = await syncTables(harness, ['--full']);
    expect(all).toMatchObject({ mode: 'full', updated: 30 });
    await expectMirrorEqualsService(harness, id);
    const refused = await adminRoute(harness, 'POST', `/tables/${id}/actions/rerun`, { field: 'Name' });
    expect(refused.status).toBe(400);
  });
});

describe('tds diff: the default span', () => {
  it('is what the last sync that changed the table brought: a sync that changed nothing does not empty it', async () => {
    const harness = await openHarness();
    const { id } = await oldTable(harness, 40);
    const [first] = await syncTables(harness, [id]);
    const added = await addEveryTypeRows(harness, id, { count: 3, from: 100 });
    expect((await syncTables(harness, []))[0]).toMatchObject({ inserted: 3 });
    expect((await syncTables(harness, []))[0]).toMatchObject({ inserted: 0, updated: 0, deleted: 0 });
    const diff = await harness.tds(['diff', 'every_type', '--format', 'ndjson']);
    expect(diff.code, diff.stderr).toBe(0);
    const changed = changeLines(diff.stdout);
    expect(changed.map((record) => [record.change, record._id])).toEqual([...added].sort().map((rowId) => ['added', rowId]));
    expect(diff.stderr).toMatch(
      new RegExp(`every_type: 3 rows differ between sync ${first!.syncId} and now; exact as of \\S+ \\(its last pass over every row\\)`),
    );
  });
});

describe('tds sync --follow: rounds and verification', () => {
  it('an idle round costs one listing and no row request, whatever the tables; a new row comes by the next round', async () => {
    const harness = await openHarness();
    const a = await narrowTable(harness, 'Old Rows', 150, (k) => 10 * DAY - k * 60_000);
    const b = await narrowTable(harness, 'Other', 30, () => DAY);
    await syncTables(harness, [a.id, b.id]);

    const follow = followInProcess(harness, ['sync', '--follow', '--every', '0.1', '--max-stale', 'off', '--json']);
    try {
      await vi.waitFor(() => expect(follow.stdout()).toContain('\n'), { timeout: 20_000, interval: 20 });
      const since = harness.emu.requestLog.length;
      await vi.waitFor(() => expect(listings(harness, since)).toBeGreaterThanOrEqual(10), { timeout: 30_000, interval: 20 });
      expect(rowReads(harness, since)).toBe(0);

      await addRows(harness, b.id, [{ cells: { Name: 'New' } }]);
      await vi.waitFor(() => expect(follow.stdout().split('\n').filter(Boolean).length).toBe(2), { timeout: 20_000, interval: 20 });
      expect(JSON.parse(follow.stdout().split('\n')[1]!).tables).toMatchObject([{ mirrorTable: 'other', inserted: 1 }]);
    } finally {
      await follow.stop();
    }
  });

  it('verification brings an edited old row and a deleted one into the mirror, history and --changes once; readers read meanwhile', async () => {
    const harness = await openHarness();
    // 3 pages: the deletions on the second, the edited row on the last (the oldest), with the row added 20 days ago
    const { id, ids } = await narrowTable(harness, 'Old Rows', 250, (k) => 10 * DAY - k * 60_000);
    await syncTables(harness, [id]);
    await harness.admin('PATCH', `/tables/${id}/rows/${ids[20]}`, { cells: { Name: 'Edited old row' } });
    await harness.admin('POST', `/tables/${id}/rows/delete`, { ids: [ids[100]] });
    await addRows(harness, id, [{ cells: { Name: 'Added old' }, createdAt: ago(20 * DAY) }]);
    await harness.admin('POST', `/tables/${id}/rows/delete`, { ids: [ids[101]] });

    const since = harness.emu.requestLog.length;
    // --max-stale 5m at the rate scale (100) is 3 s here: a page every 0.45 s (the share alone would allow one every 20 ms).
    // The follower is a process apart from the readers (run in this one): the mirror's lock is between processes.
    const follow = harness.spawn(['sync', '--follow', '--every', '0.1', '--max-stale', '5m', '--max-share', '0.5', '--changes']);
    try {
      // every reader, each time the follower has asked for a page, which it writes next (twice at least, ten times at
      // most, until it has printed the changes): it holds the file only while it writes a page or a round. Readers
      // one after another, with no wait between them, would keep the follower out of the file until they stop.
      const changesPrinted = (): boolean => {
        const all = changeLines(follow.stdout());
        return all.filter((record) => record.change === 'deleted').length >= 2 && all.some((record) => record._id === ids[20]);
      };
      let pagesAsked = 0;
      for (let k = 0; k < 2 || (k < 10 && !changesPrinted()); k += 1) {
        await vi.waitFor(() => expect(changesPrinted() || rowReads(harness, since) > pagesAsked).toBe(true), {
          timeout: 30_000,
          interval: 20,
        });
        pagesAsked = rowReads(harness, since);
        for (const args of [
          ['sql', 'SELECT count(*) AS n FROM old_rows', '--format', 'json'],
          ['stats', 'old_rows', '--no-sync', '--format', 'json'],
          ['diff', 'old_rows', '--summary', '--format', 'json'],
        ]) {
          const result = await harness.tds(args);
          expect(result.code, `${args[0]}: ${result.stderr}`).toBe(0);
        }
      }
      await vi.waitFor(
        () => {
          const all = changeLines(follow.stdout());
          expect(idsOfChange(all, 'deleted')).toEqual([ids[100], ids[101]].sort());
          expect(idsOfChange(all, 'updated')).toContain(ids[20]);
        },
        { timeout: 100_000, interval: 50 },
      );
      // row reads stay within the share: pages spaced at least 2 s of the service (20 ms here) apart
      const reads_ = harness.emu.requestLog.slice(since).filter((entry) => entry.bucket === 'rows');
      expect(reads_.length).toBeGreaterThan(0);
      // the share's budget, from the request log: in any minute of the service (600 ms here), at most 0.5 × 60 + 1
      const busiest = Math.max(
        ...reads_.map((entry) => reads_.filter((other) => other.at >= entry.at && other.at < entry.at + 600).length),
      );
      expect(busiest).toBeLessThanOrEqual(31);
    } finally {
      follow.child.kill('SIGINT');
      await follow.ended;
    }
    const printed = changeLines(follow.stdout());
    expect(printed.filter((record) => record._id === ids[20]).length).toBe(1);
    expect(printed.filter((record) => record._id === ids[100]).length).toBe(1);
    expect((await mirrorRows(harness, 'old_rows')).map((row) => row._id)).toEqual((await exportRows(harness, id)).map((row) => row._id));
  }, 120_000);

  it('verification at the full share: a count that only fell costs a round no row request (verification finds the deletion once); a row added after it is read by the next round', async () => {
    // mid-pass: when a later page of a verification of the table (one with a cursor) arrives, however short the pass
    let tableId = '';
    let arrived: (() => void) | undefined;
    const harness = await openHarness({
      onArrival: ({ method, path }) => {
        if (arrived && method === 'GET' && path.startsWith(`/v1/tables/${tableId}/rows`) && path.includes('cursor=')) arrived();
      },
    });
    const midPass = () => new Promise<void>((resolve) => (arrived = resolve)).finally(() => (arrived = undefined));
    const { id, ids } = await narrowTable(harness, 'Old Rows', 250, (k) => 10 * DAY - k * 60_000);
    tableId = id;
    const other = await narrowTable(harness, 'Other', 30, () => DAY);
    await syncTables(harness, [id, other.id]);
    // 3 pages; --max-stale 1s asks more than --max-share 0.05 allows: a page every 200 ms here, a pass in 0.6 s
    const follow = followInProcess(harness, [
      'sync',
      '--follow',
      '--every',
      '0.1',
      '--max-stale',
      '1s',
      '--max-share',
      '0.05',
      '--changes',
    ]);
    const ofTable = (entry: { bucket?: string; path: string }) => entry.bucket === 'rows' && entry.path.startsWith(`/v1/tables/${id}/`);
    const rowsSince = (since: number) => harness.emu.requestLog.slice(since).filter(ofTable);
    let since = 0;
    let added: string[] = [];
    let until = 0;
    try {
      await midPass();
      since = harness.emu.requestLog.length;
      await harness.admin('POST', `/tables/${id}/rows/delete`, { ids: [ids[150]] });
      await vi.waitFor(() => expect(changeLines(follow.stdout()).map((record) => record._id)).toContain(ids[150]), {
        timeout: 60_000,
        interval: 20,
      });
      // two whole passes at least, so that a round's read, had there been one, shows between them
      const starts = () => rowsSince(since).filter((entry) => !entry.path.includes('cursor=')).length;
      await vi.waitFor(() => expect(starts()).toBeGreaterThanOrEqual(3), { timeout: 60_000, interval: 20 });
      until = harness.emu.requestLog.length;
      // a round reads the other table meanwhile; then the count is back where it was before the deletion,
      // and the round must still see that it rose
      const [otherRow] = await addRows(harness, other.id, [{ cells: { Name: 'New' } }]);
      await vi.waitFor(() => expect(changeLines(follow.stdout()).map((record) => record._id)).toContain(otherRow), {
        timeout: 60_000,
        interval: 20,
      });
      await midPass();
      added = await addRows(harness, id, [{ cells: { Name: 'New' } }]);
      await vi.waitFor(() => expect(changeLines(follow.stdout()).map((record) => record._id)).toContain(added[0]), {
        timeout: 60_000,
        interval: 20,
      });
    } finally {
      await follow.stop();
    }
    // every row read of the table after the deletion is a verification page: each pass starts at the newest
    // row (no cursor) and reads the table's 3 pages; a round's read of the newest page would be one more
    const reads = harness.emu.requestLog.slice(since, until).filter(ofTable);
    const starts = reads.flatMap((entry, k) => (entry.path.includes('cursor=') ? [] : [k]));
    expect(starts.length).toBeGreaterThanOrEqual(2);
    for (const [n, start] of starts.slice(0, -1).entries()) expect(starts[n + 1]! - start, follow.stderr()).toBe(3);
    const printed = changeLines(follow.stdout());
    expect(printed.filter((record) => record._id === ids[150]).map((record) => record.change)).toEqual(['deleted']);
    const history = await harness.tds(['sql', 'SELECT _id, _change FROM old_rows__history', '--format', 'json']);
    expect(JSON.parse(history.stdout)).toEqual([{ _id: ids[150], _change: 'deleted' }]);
    // the added row came by a round (an incremental sync), not a verification page
    const addedBy = printed.find((record) => record._id === added[0])!;
    expect(addedBy.change).toBe('added');
    const mode = await harness.tds(['sql', `SELECT mode FROM _tds_syncs WHERE sync_id = ${addedBy.syncId}`, '--format', 'json']);
    expect(JSON.parse(mode.stdout)).toEqual([{ mode: 'incremental' }]);
    expect((await mirrorRows(harness, 'old_rows')).map((row) => row._id)).toEqual((await exportRows(harness, id)).map((row) => row._id));
  }, 120_000);
});

describe('tds sync --follow: stopped mid-verification', () => {
  it.each(['SIGKILL', 'SIGTERM'] as const)(
    '%s in the middle of a verification: the next follower continues it; every change once in the mirror, history and --changes',
    async (signal) => {
      // the signal comes while a later page of the verification (one with a cursor) is held on its arrival:
      // in the middle of the pass however fast its pages come
      const laterPage = holdArrival(({ method, path }) => method === 'GET' && /\/rows\?.*cursor=/.test(path));
      const harness = await openHarness({ onArrival: laterPage.onArrival });
      // 3 pages: an edit on the first (written before the signal), a deletion on the second (the page held), an edit on the last
      const { id, ids } = await oldTable(harness, 250);
      await syncTables(harness, [id]);
      await harness.admin('PATCH', `/tables/${id}/rows/${ids[240]}`, { cells: { Name: 'Edited on page 1' } });
      await harness.admin('PATCH', `/tables/${id}/rows/${ids[20]}`, { cells: { Name: 'Edited on page 3' } });
      await harness.admin('POST', `/tables/${id}/rows/delete`, { ids: [ids[100]] });
      await addEveryTypeRows(harness, id, { count: 1, from: 700, createdAgoMs: () => 20 * DAY });

      // a page every ~0.18 s here (--max-stale 2m at the rate scale over 3 pages, and as many of a wait)
      const args = ['sync', '--follow', '--every', '0.1', '--max-stale', '2m', '--changes'];
      laterPage.arm();
      const first = harness.spawn(args);
      await laterPage.arrived;
      await vi.waitFor(
        async () => {
          const state = await harness.tds(['sql', 'SELECT verify_pass FROM _tds_tables', '--format', 'json']);
          expect(state.code, state.stderr).toBe(0);
          expect(JSON.parse(state.stdout)[0].verify_pass).not.toBeNull();
        },
        { timeout: 30_000, interval: 100 },
      );
      first.child.kill(signal);
      laterPage.release();
      const ended = await first.ended;
      if (signal === 'SIGTERM') expect(ended.code, first.stderr()).toBe(143);
      const before = changeLines(first.stdout());

      // the next follower in this process: its output tells all
      const second = followInProcess(harness, args);
      try {
        await vi.waitFor(
          () => {
            const all = [...before, ...changeLines(second.stdout())];
            expect(idsOfChange(all, 'deleted')).toEqual([ids[100]]);
            expect(all.filter((record) => record._id === ids[20])).toHaveLength(1);
          },
          { timeout: 60_000, interval: 50 },
        );
      } finally {
        await second.stop();
      }
      const all = [...before, ...changeLines(second.stdout())];
      for (const changed of [ids[240], ids[20], ids[100]]) expect(all.filter((record) => record._id === changed)).toHaveLength(1);
      await expectMirrorEqualsService(harness, id);
      const history = await harness.tds(['sql', 'SELECT _id, _change FROM every_type__history ORDER BY _id', '--format', 'json']);
      expect(JSON.parse(history.stdout)).toEqual(
        [
          { _id: ids[20], _change: 'updated' },
          { _id: ids[100], _change: 'deleted' },
          { _id: ids[240], _change: 'updated' },
        ].sort((a, b) => (a._id! < b._id! ? -1 : 1)),
      );
    },
    120_000,
  );
});
