import { describe, expect, vi } from 'vitest';
import { test as it, type Harness } from '../helpers/emulator-fixture.js';
import { connectMcp } from './mcp-support.js';

// A mirror stays readable while a sync writes it (issue 30): the sync holds the file only while it
// writes a group (mirror-db.ts, HeldMirror), so `tds sql` and an MCP query get in between the groups of
// a first sync, and see it under way.

/** 20 pages: a page is let through only after a read (see the test), so the pass outlasts the reads. */
const ROWS = 2_000;
/** Reads of each kind that must succeed while the first sync is under way. */
const READS = 10;
/** The sync's first pages come at once: its first group is written before the reads begin. */
const FREE_PAGES = 2;

const UNDER_WAY = 'SELECT pass_cursor IS NOT NULL AS under_way, (SELECT count(*) FROM generated)::INT AS n FROM _tds_tables';

/** What an in-process `tds sql` reads of the pass: whether it is under way, and the rows written so far. */
async function sqlSees(harness: Harness): Promise<{ under_way: boolean; n: number }> {
  const result = await harness.tds(['sql', UNDER_WAY, '--format', 'json']);
  expect(result.code, result.stderr).toBe(0);
  return (JSON.parse(result.stdout) as Array<{ under_way: boolean; n: number }>)[0]!;
}

describe('readers while a first sync writes the mirror', () => {
  it('tds sql and an MCP query succeed again and again during a long first sync, each seeing it under way', async ({ open }) => {
    // the sync's page N waits for N - FREE_PAGES reads: each read comes while the pass is under way, with
    // its groups written among the reads, however fast or slow the machine is
    let pages = 0;
    let reads = 0;
    const waiting: Array<() => void> = [];
    const harness = await open({
      rows: ROWS,
      onArrival: async ({ path }) => {
        if (!/\/rows(\?|$)/.test(path)) return;
        pages += 1;
        const page = pages;
        while (reads < Math.min(page - FREE_PAGES, READS)) await new Promise<void>((resolve) => waiting.push(resolve));
      },
    });
    const sync = harness.spawn(['sync', 'Generated']);
    const mcp = await connectMcp(harness);
    const seen: Array<{ under_way: boolean; n: number }> = [];
    try {
      // the first group written: the mirror has the table, the pass goes on
      await vi.waitFor(async () => expect((await sqlSees(harness).catch(() => undefined))?.under_way).toBe(true), {
        timeout: 60_000,
        interval: 50,
      });
      for (let k = 0; k < READS; k += 1) {
        seen.push(await sqlSees(harness));
        const result = await mcp.call('query_sql', { sql: UNDER_WAY });
        expect(result.isError, result.text).toBe(false);
        seen.push((result.structured!.rows as Array<{ under_way: boolean; n: number }>)[0]!);
        reads += 1;
        for (const resolve of waiting.splice(0)) resolve();
      }
    } finally {
      await mcp.close();
    }
    const ended = await sync.ended;
    expect(ended.code, sync.stderr()).toBe(0);
    // every read came while the pass was under way (the sync held the file only for its groups)
    expect(seen.filter((read) => read.under_way)).toHaveLength(2 * READS);
    expect(seen.at(-1)!.n).toBeLessThan(ROWS);
    const done = await sqlSees(harness);
    expect(done).toEqual({ under_way: false, n: ROWS });
  }, 120_000);
});
