import { describe, expect, vi } from 'vitest';
import { syncTables } from './sync-support.js';
import { test as it, type Harness, useOpenOfEachTest } from '../helpers/emulator-fixture.js';

// Issue 25: the demo's Leads had action cells seeded queued, waiting and running that never moved, so the
// watermark stayed at the oldest of them and every "incremental" sync read the whole table.

const openHarness = useOpenOfEachTest();

/** Leads' action cells that are not final, read from the service (every page). */
async function pendingEnrich(b: Harness): Promise<number> {
  const headers = { authorization: `Bearer ${b.emu.apiKey}` };
  const { tables } = (await (await fetch(`${b.emu.baseUrl}/tables`, { headers })).json()) as {
    tables: Array<{ id: string; name: string }>;
  };
  const leads = tables.find((table) => table.name === 'Leads')!;
  let pending = 0;
  let cursor: string | null = null;
  do {
    const query: string = cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`;
    const page = (await (await fetch(`${b.emu.baseUrl}/tables/${leads.id}/rows?limit=100${query}`, { headers })).json()) as {
      rows: Array<{ cells: Record<string, { status?: string | null }> }>;
      nextCursor: string | null;
    };
    for (const row of page.rows)
      pending += Object.values(row.cells).filter((cell) => ['queued', 'waiting', 'running'].includes(cell.status ?? '')).length;
    cursor = page.nextCursor;
  } while (cursor !== null);
  return pending;
}

describe('tds sync on the demo data: incremental syncs read a page once the seeded actions have run', () => {
  it('the seeded cells that were pending settle, and the next incremental sync of Leads and Companies reads one page each', async () => {
    const b = await openHarness({ actionDelayMs: 200 });
    const first = await syncTables(b, ['Leads', 'Companies']);
    expect(first.map((table) => [table.name, table.mode, table.rowsRead])).toEqual([
      ['Leads', 'full', 250],
      ['Companies', 'full', 40],
    ]);
    await vi.waitFor(async () => expect(await pendingEnrich(b)).toBe(0), { timeout: 20_000, interval: 200 });
    await syncTables(b, []); // reads the rows that were pending at the first sync, now settled
    const before = b.emu.requestLog.length;
    const next = await syncTables(b, []);
    expect(next.map((table) => [table.name, table.mode]).sort()).toEqual([
      ['Companies', 'incremental'],
      ['Leads', 'incremental'],
    ]);
    const leads = next.find((table) => table.name === 'Leads')!;
    expect(leads.rowsRead).toBeLessThanOrEqual(100);
    expect(b.emu.requestLog.slice(before).filter((entry) => entry.bucket === 'rows')).toHaveLength(2);
  });
});
