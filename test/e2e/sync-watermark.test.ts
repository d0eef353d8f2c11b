import { describe, expect, vi } from 'vitest';
import { everyTypeTable, exportRows, mirrorRows } from '../mirror/helpers.js';
import { addEveryTypeRows, ago, DAY, expectMirrorEqualsService } from './sync-support.js';
import { test as it, type Harness, useOpenOfEachTest } from '../helpers/emulator-fixture.js';

// The watermark of incremental syncs: in the service's time; rows that show late, within the intake
// window, are still read; a mirror short of the service's row count after reading down to it reads
// further back (issue 20, item 2); and what an idle round of --follow costs.

const openHarness = useOpenOfEachTest();
const HOUR = 3_600_000;

async function tablesRow(b: Harness): Promise<{ row_count: number; service_row_count: number }> {
  const result = await b.tds(['sql', 'SELECT row_count, service_row_count FROM _tds_tables', '--format', 'json']);
  expect(result.code, result.stderr).toBe(0);
  return (JSON.parse(result.stdout) as Array<{ row_count: number; service_row_count: number }>)[0]!;
}

describe('tds sync: the watermark is in the service time', () => {
  it("this machine's clock 10 minutes ahead of the service's: rows added after a sync are all synced by the next", async () => {
    const harness = await openHarness();
    await harness.admin('POST', '/clock', { offsetMs: -600_000 });
    const table = await everyTypeTable(harness);
    await addEveryTypeRows(harness, table.id, { count: 41, from: 1 });
    const first = await harness.tds(['sync', table.id, '--json']);
    expect(first.code, first.stderr).toBe(0);

    await addEveryTypeRows(harness, table.id, { count: 150, from: 100 });
    const next = await harness.tds(['sync', '--json']);
    expect(next.code, next.stderr).toBe(0);
    expect(JSON.parse(next.stdout).tables[0]).toMatchObject({ mode: 'incremental', inserted: 150 });
    expect(await tablesRow(harness)).toEqual({ row_count: 191, service_row_count: 191 });
    await expectMirrorEqualsService(harness, table.id);
  });

  it('rows below the watermark that no sync has seen: the mirror short of the service count reads further back, and says so', async () => {
    const harness = await openHarness();
    const table = await everyTypeTable(harness);
    await addEveryTypeRows(harness, table.id, { count: 300, from: 1, createdAgoMs: (i) => (300 - i) * HOUR });
    expect((await harness.tds(['sync', table.id])).code).toBe(0);

    // five rows created with times between the old ones (the emulator's admin route; a service's import
    // could do the same), and two new ones
    await addEveryTypeRows(harness, table.id, { count: 5, from: 400, createdAgoMs: (i) => (250 - i * 10) * HOUR + 1_000 });
    await addEveryTypeRows(harness, table.id, { count: 2, from: 500 });
    const rowReads = (since: number): number => harness.emu.requestLog.slice(since).filter((entry) => entry.bucket === 'rows').length;
    let since = harness.emu.requestLog.length;
    const next = await harness.tds(['sync', '--json']);
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).toMatch(
      /every_type: 5 of the service's rows are not in the mirror after reading down to its watermark; reading further back/,
    );
    expect(JSON.parse(next.stdout).tables[0]).toMatchObject({ mode: 'incremental', inserted: 7, deleted: 0 });
    // it stops once they are found: at the page of the oldest of them (the third), not at the end of the table
    expect(rowReads(since)).toBe(3);
    expect(await tablesRow(harness)).toEqual({ row_count: 307, service_row_count: 307 });
    await expectMirrorEqualsService(harness, table.id);

    // and a sync with nothing missing reads one page, saying nothing
    since = harness.emu.requestLog.length;
    const idle = await harness.tds(['sync', '--json']);
    expect(JSON.parse(idle.stdout).tables[0]).toMatchObject({ mode: 'incremental', inserted: 0 });
    expect(rowReads(since)).toBe(1);
    expect(idle.stderr).not.toMatch(/reading further back/);
  });
});

describe('tds sync: rows that show late, and --follow', () => {
  it('rows that become visible late, within the intake window, are still synced by the next incremental sync', async () => {
    // the webhook intake holds what is sent until the test flushes it
    const harness = await openHarness({ ingestDelayMs: 600_000 });
    const { tables } = (await (
      await fetch(`${harness.emu.baseUrl}/tables`, { headers: { authorization: `Bearer ${harness.emu.apiKey}` } })
    ).json()) as { tables: Array<{ id: string; name: string }> };
    const signups = tables.find((table) => table.name === 'Signups')!;
    expect((await harness.tds(['sync', 'Signups'])).code).toBe(0);
    const rows = `/tables/${signups.id}/rows`;

    // five rows sent to the webhook (created now, not visible yet); two pages of rows that show at once,
    // created 20 to 10 s ago
    const sent = await fetch(harness.emu.webhooks[signups.id]!, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(Array.from({ length: 5 }, (_, i) => ({ email: `late${i}@example.com`, name: `Late ${i}`, plan: 'pro' }))),
    });
    expect(sent.status).toBeLessThan(300);
    const now = Date.now();
    const at = (ms: number): string => new Date(now - ms).toISOString();
    await harness.admin('POST', rows, {
      rows: Array.from({ length: 200 }, (_, i) => ({
        cells: { Email: `shown${i}@example.com`, Name: `Shown ${i}` },
        createdAt: at(10_000 + i * 50),
      })),
    });
    const before = await harness.tds(['sync', '--json']);
    expect(JSON.parse(before.stdout).tables[0]).toMatchObject({ mode: 'incremental', inserted: 200 });

    // now the webhook rows show (older than that sync's start), and a row sent 21 s ago that the intake
    // held until now (the admin route gives it that creation time): below both pages that sync read
    harness.emu.flushIntake();
    await harness.admin('POST', rows, { rows: [{ cells: { Email: 'held@example.com', Name: 'Held' }, createdAt: at(21_000) }] });
    const after = await harness.tds(['sync', '--json']);
    expect(after.code, after.stderr).toBe(0);
    expect(JSON.parse(after.stdout).tables[0]).toMatchObject({ mode: 'incremental', inserted: 6, deleted: 0 });
    const ids = (records: Array<Record<string, unknown>>): unknown[] => records.map((record) => record._id);
    expect(ids(await mirrorRows(harness, 'signups'))).toEqual(ids(await exportRows(harness, signups.id)));
  });

  it('--follow: after a burst, an idle round reads no rows (verification off), only the listing', async () => {
    const harness = await openHarness();
    const table = await everyTypeTable(harness);
    await addEveryTypeRows(harness, table.id, { count: 150, from: 1, createdAgoMs: (i) => 10 * DAY - i * 60_000 });
    expect((await harness.tds(['sync', table.id])).code).toBe(0);
    // as if that sync had run ten minutes ago, and 300 rows had come in a burst two minutes ago (so
    // more than the margin before the next sync starts; a burst just now is read again by every round
    // until the margin has passed, as a row may still show late among its rows)
    const aged = await harness.tds(['sql', `UPDATE _tds_tables SET watermark = TIMESTAMPTZ '${ago(11 * 60_000)}'`, '--write']);
    expect(aged.code, aged.stderr).toBe(0);
    await addEveryTypeRows(harness, table.id, { count: 300, from: 200, createdAgoMs: (i) => 120_000 - i });

    // a process: its stdout shows each round's summary as it comes, and Ctrl-C ends it
    const follow = harness.spawn(['sync', '--follow', '--every', '0.3', '--json', '--max-stale', 'off']);
    try {
      // round 0 reads the burst and prints its summary
      await vi.waitFor(() => expect(follow.stdout()).toContain('\n'), { timeout: 20_000, interval: 20 });
      expect(JSON.parse(follow.stdout().split('\n')[0]!).tables[0]).toMatchObject({ mode: 'incremental', inserted: 300 });
      const from = harness.emu.requestLog.length;
      const after = () => harness.emu.requestLog.slice(from);
      const listings = () => after().filter((entry) => entry.method === 'GET' && /\/v1\/tables(\?|$)/.test(entry.path)).length;
      await vi.waitFor(() => expect(listings()).toBeGreaterThanOrEqual(5), { timeout: 20_000, interval: 50 });
      expect(after().filter((entry) => entry.bucket === 'rows')).toEqual([]);
    } finally {
      follow.child.kill('SIGINT');
      await follow.ended;
    }
  });
});
