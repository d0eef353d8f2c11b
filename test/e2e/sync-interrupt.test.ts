import { describe, expect, vi } from 'vitest';
import { everyTypeTable } from '../mirror/helpers.js';
import { addEveryTypeRows, ago, expectMirrorEqualsService, rowReadsSince } from './sync-support.js';
import { addRows, makeTable, NAME_AND_NUMBER } from '../helpers/admin-tables.js';
import { test as it, type Harness, type HarnessOptions } from '../helpers/emulator-fixture.js';

// Interruptions leave a consistent mirror that the next sync completes. The interrupted syncs are
// processes (a signal is what is tested); the syncs before and after run in-process.

let openHarness: (options?: HarnessOptions) => Promise<Harness>;
it.beforeEach(({ open }) => {
  openHarness = open;
});

/**
 * 10 pages of a table of two columns. The first group of rows is written at once, and the signal comes
 * once that group is saved; the pass's pages after the first two wait at the emulator until then
 * (`holdPages`), so it is still reading when the signal comes, however fast or slow the machine is.
 */
const ROWS = 1_000;
const FREE_PAGES = 2;

/** A table of a name and a number, and its rows, created from oldest to newest; the row IDs in that order. */
async function plainTable(harness: Harness): Promise<{ id: string; ids: string[] }> {
  const { id } = await makeTable(harness, 'Plain', NAME_AND_NUMBER);
  const rows = Array.from({ length: ROWS }, (_, i) => ({ cells: { Name: `row ${i}`, N: i }, createdAt: ago((ROWS - i) * 60_000) }));
  return { id, ids: await addRows(harness, id, rows) };
}

describe('tds sync: interruptions leave a consistent mirror that the next sync completes', () => {
  it.each([
    ['SIGKILL', 'SIGKILL' as const, null],
    ['SIGINT (exit 130)', 'SIGINT' as const, 130],
  ])(
    '%s in the middle of a --full sync; the next sync continues that pass, and it still deletes what it did not see',
    async (_name, signal, code) => {
      let held: { pages: number; until: Promise<void> } | undefined;
      let release = (): void => undefined;
      const harness = await openHarness({
        onArrival: async ({ path }) => {
          if (held && /\/rows(\?|$)/.test(path) && ++held.pages > FREE_PAGES) await held.until;
        },
      });
      const { id: tableId, ids } = await plainTable(harness);
      expect((await harness.tds(['sync', tableId])).code).toBe(0);
      // the oldest rows go away: a full pass reads them last, so the interrupted one has not come to them
      await harness.admin('POST', `/tables/${tableId}/rows/delete`, { ids: ids.slice(0, 5) });

      // on a terminal (forced), the progress line shows the rows the pass has saved
      const since = harness.emu.requestLog.length;
      held = { pages: 0, until: new Promise((resolve) => (release = resolve)) };
      const sync = harness.spawn(['sync', '--full'], { env: { TDS_FORCE_TTY: '1' } });
      await vi.waitFor(() => expect(sync.stderr()).toMatch(/Plain: [1-9][\d,]* rows/), { timeout: 20_000, interval: 5 });
      // the pass was still reading
      expect(rowReadsSince(harness, since)).toBeLessThan(ROWS / 100);
      sync.child.kill(signal);
      const ended = await sync.ended;
      held = undefined;
      release();
      if (code !== null) expect(ended.code, sync.stderr()).toBe(code);
      else expect(ended.signal).toBe('SIGKILL');
      // Ctrl-C says what was kept and that the next sync goes on, as an export's does
      if (code !== null)
        expect(sync.stderr()).toMatch(
          /tds: interrupted: the sync of Plain stopped: [1-9][\d,]* rows of it kept in \S+\nhint: the next `tds sync` continues where this one stopped/,
        );
      const state = await harness.tds([
        'sql',
        'SELECT pass_mode, pass_cursor IS NOT NULL AS saved, pass_rows FROM _tds_tables',
        '--format',
        'json',
      ]);
      const [saved] = JSON.parse(state.stdout) as Array<{ pass_mode: string; saved: boolean; pass_rows: number }>;
      expect(saved).toMatchObject({ pass_mode: 'full', saved: true });
      expect(saved!.pass_rows).toBeGreaterThan(0);

      const resumed = await harness.tds(['sync', '--json']);
      expect(resumed.code, resumed.stderr).toBe(0);
      const summary = JSON.parse(resumed.stdout).tables[0] as { rowsRead: number };
      expect(summary).toMatchObject({ mode: 'full', complete: true, deleted: 5 });
      // it went on from where the interrupted one stopped (what that one had written is not read again)
      expect(summary.rowsRead + saved!.pass_rows).toBe(ROWS - 5);
      await expectMirrorEqualsService(harness, tableId, 'plain');

      // a row deleted after a pass read it is found by the next --full, which always starts afresh
      await harness.admin('POST', `/tables/${tableId}/rows/delete`, { ids: [ids.at(-1)] });
      const full = await harness.tds(['sync', '--full', '--json']);
      expect(JSON.parse(full.stdout).tables[0]).toMatchObject({ mode: 'full', deleted: 1 });
      await expectMirrorEqualsService(harness, tableId, 'plain');
    },
  );

  it('rides out injected 500s, 429s and resets (the client retries reads)', async () => {
    const harness = await openHarness({ readFaults: '500:0.1,429:0.05,reset:0.05', faultSeed: 3 });
    const table = await everyTypeTable(harness);
    await addEveryTypeRows(harness, table.id, { count: 800, from: 0, createdAgoMs: (i) => (800 - i) * 60_000 });
    const result = await harness.tds(['sync', table.id, '--max-retries', '10']);
    expect(result.code, result.stderr).toBe(0);
    await expectMirrorEqualsService(harness, table.id);
  });
});
