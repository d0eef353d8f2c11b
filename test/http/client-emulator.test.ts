import { describe, expect } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { ApiClient } from '../../src/http/client.js';
import { serviceTimings } from '../../src/http/rate-limiter.js';
import { paginate, rowsOf } from '../../src/http/paginate.js';
import { resolveTable } from '../../src/http/resolve-table.js';
import { test as it } from '../helpers/emulator-fixture.js';
import { RATE_SCALE } from '../helpers/rate-scale.js';

// The HTTP core against the real emulator (in-process, rate limits 100x faster), asserting its
// request log: how often requests were sent and how far apart.

/** A window 10 times the suite's, for the test whose other client's reads must all still be in it when it starts. */
const SLOW_SCALE = RATE_SCALE / 10;
let emulator: RunningEmulator;

// an emulator per test: each starts with empty rate windows
it.beforeEach(async ({ open }) => {
  emulator = (await open()).emu;
});

async function withClient<T>(rateScale: number, work: (client: ApiClient) => Promise<T>): Promise<T> {
  const client = new ApiClient({ baseUrl: emulator.baseUrl, apiKey: emulator.apiKey, timings: serviceTimings(rateScale) });
  try {
    return await work(client);
  } finally {
    await client.close();
  }
}

const rowRequests = (since: number) => emulator.requestLog.slice(since).filter((entry) => entry.path.includes('/rows'));

describe('ApiClient against the emulator', () => {
  it('spaces row reads to the 60-a-minute limit (scaled): the full burst, then the window, and no 429', async () => {
    const leads = await withClient(RATE_SCALE, (client) => resolveTable(client, 'Leads'));
    const since = emulator.requestLog.length;
    await withClient(RATE_SCALE, (client) => Promise.all(Array.from({ length: 70 }, () => client.rowsPage(leads.id, { limit: 1 }))));
    const log = rowRequests(since);
    expect(log).toHaveLength(70);
    expect(log.filter((entry) => entry.status === 429)).toHaveLength(0);
    const times = log.map((entry) => entry.at).sort((a, b) => a - b);
    expect(times[60]! - times[0]!).toBeGreaterThanOrEqual(60_000 / RATE_SCALE);
  });

  it("honours the service's own 429s when another client used up the limit, and still gets every page", async ({ open }) => {
    // a window 10 times the suite's: the other client's 60 reads must all still be in it when this
    // client starts, however slowly a loaded machine serves them
    emulator = (await open({ rateScale: SLOW_SCALE })).emu;
    const leads = await withClient(SLOW_SCALE, (client) => resolveTable(client, 'Leads'));
    const since = emulator.requestLog.length;
    await withClient(SLOW_SCALE, (other) => Promise.all(Array.from({ length: 60 }, () => other.rowsPage(leads.id, { limit: 1 }))));
    const stats = await withClient(SLOW_SCALE, async (client) => {
      await Promise.all(Array.from({ length: 10 }, () => client.rowsPage(leads.id, { limit: 1 })));
      return client.stats;
    });
    const log = rowRequests(since);
    expect(log.filter((entry) => entry.status === 200)).toHaveLength(70);
    expect(stats.rateLimited).toBeGreaterThan(0);
    expect(stats.rateLimited).toBe(log.filter((entry) => entry.status === 429).length);
  });

  it('pages through a whole table with paginate, each row once', async () => {
    const rows = await withClient(RATE_SCALE, async (client) => {
      const leads = await resolveTable(client, 'Leads');
      const ids: string[] = [];
      for await (const row of rowsOf(paginate((cursor) => client.rowsPage(leads.id, { limit: 100, cursor })))) ids.push(row.id);
      return { ids, expected: leads.rowCount };
    });
    expect(rows.ids).toHaveLength(rows.expected);
    expect(new Set(rows.ids).size).toBe(rows.expected);
  });

  it('checks every seeded response shape (a cut cell may lack value)', async () => {
    await withClient(RATE_SCALE, async (client) => {
      const { tables } = await client.tables();
      for (const table of tables) {
        await client.schema(table.id);
        await client.queryPage(table.id, { limit: 100, q: 'a' });
      }
      const edge = tables.find((table) => table.name === 'Edge Cases')!;
      const page = await client.rowsPage(edge.id, {});
      const cut = page.rows.flatMap((row) => Object.values(row.cells)).filter((cell) => cell.isTruncated);
      expect(cut.length).toBeGreaterThan(0);
    });
  });
});
