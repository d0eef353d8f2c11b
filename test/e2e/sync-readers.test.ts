import { describe, expect, vi } from 'vitest';
import { test as it, type Harness } from '../helpers/emulator-fixture.js';
import { LIMITED_RATE_SCALE } from '../helpers/rate-scale.js';
import { connectMcp } from './mcp-support.js';

// A mirror stays readable while a sync writes it (issue 30): the sync holds the file only while it
// writes a group (mirror-db.ts, HeldMirror), never while it waits for pages, so `tds sql` and an MCP
// query get in between the groups of a long first sync, and see it under way.

/** 200 pages: at the limited rate scale (60 row reads per 3 s) the first sync reads for 10 s at least. */
const ROWS = 20_000;
/** Reads of each kind that must succeed while the first sync is under way. */
const READS = 10;

const UNDER_WAY = 'SELECT pass_cursor IS NOT NULL AS under_way, (SELECT count(*) FROM generated)::INT AS n FROM _tds_tables';

/** What an in-process `tds sql` reads of the pass: whether it is under way, and the rows written so far. */
async function sqlSees(harness: Harness): Promise<{ under_way: boolean; n: number }> {
  const result = await harness.tds(['sql', UNDER_WAY, '--format', 'json']);
  expect(result.code, result.stderr).toBe(0);
  return (JSON.parse(result.stdout) as Array<{ under_way: boolean; n: number }>)[0]!;
}

describe('readers while a first sync writes the mirror', () => {
  it('tds sql and an MCP query succeed again and again during a long first sync, each seeing it under way', async ({ open }) => {
    const harness = await open({ rows: ROWS, rateScale: LIMITED_RATE_SCALE });
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
