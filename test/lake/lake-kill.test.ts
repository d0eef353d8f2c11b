import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, vi } from 'vitest';
import { createPrng } from '../../src/emulator/seed/prng.js';
import { test as it, useOpenOfEachTest } from '../helpers/emulator-fixture.js';

// SIGKILL at seeded moments of syncs with --lake (while pages are read and while the lake is written),
// each followed by a sync that completes: no partial file where a reader looks, and the lake equal to
// the mirror (tds lake check, which reads it as the README's SQL does).

const openHarness = useOpenOfEachTest();

const ROWS = 400;
const CYCLES = 4;

describe('tds sync --lake through kills', () => {
  it('SIGKILL anywhere: no partial file in a partition, and the next sync leaves the lake equal to the mirror', async () => {
    const random = createPrng(35);
    const b = await openHarness();
    const lake = join(b.dir, 'lake');
    const created = await b.admin<{ table: { id: string } }>('POST', '/tables', {
      workspace: 'Sales',
      name: 'Killed',
      fields: [
        { label: 'Name', type: 'text' },
        { label: 'N', type: 'number' },
      ],
    });
    const tableId = created.table.id;
    const rows = await b.admin<{ rows: Array<{ id: string }> }>('POST', `/tables/${tableId}/rows`, {
      rows: Array.from({ length: ROWS }, (_, i) => ({
        cells: { Name: `row ${i}`, N: i },
        createdAt: new Date(Date.now() - (ROWS - i) * 60_000).toISOString(),
      })),
    });
    const ids = rows.rows.map((row) => row.id);
    const pages = Math.ceil(ROWS / 100);

    for (let cycle = 0; cycle < CYCLES; cycle += 1) {
      // something to change each time: an edit of an old row and a deletion
      await b.admin('PATCH', `/tables/${tableId}/rows/${ids[cycle]}`, { cells: { Name: `edited ${cycle}` } });
      await b.admin('DELETE', `/tables/${tableId}/rows/${ids[ids.length - 1 - cycle]}`);
      const since = b.emu.requestLog.length;
      const sync = b.spawn(['sync', tableId, '--full', '--lake', lake]);
      let done = false;
      void sync.ended.then(() => (done = true));
      const after = 1 + Math.floor(random() * pages);
      const answered = (): number =>
        b.emu.requestLog.slice(since).filter((entry) => entry.bucket === 'rows' && entry.status === 200).length;
      await vi.waitFor(() => expect(done || answered() >= after).toBe(true), { timeout: 20_000, interval: 2 });
      await sleep(Math.floor(random() * 120));
      if (!done) sync.child.kill('SIGKILL');
      await sync.ended;
      await expectNoPartialWhereReadersLook(join(lake, 'killed', 'changes'));
    }
    const last = await b.tds(['sync', tableId, '--lake', lake]);
    expect(last.code, last.stderr).toBe(0);
    const check = await b.tds(['lake', 'check', lake]);
    expect(check.code, check.stderr).toBe(0);
    expect(check.stderr).toMatch(new RegExp(`killed: the lake matches the mirror \\(${ROWS - CYCLES} rows\\)`));
  }, 120_000);
});

/** Every file in a `sync_id=N` folder is a whole Parquet file or the `_SUCCESS` marker. */
async function expectNoPartialWhereReadersLook(changes: string): Promise<void> {
  const partitions = (await readdir(changes).catch(() => [])).filter((name) => name.startsWith('sync_id='));
  for (const partition of partitions) {
    for (const name of await readdir(join(changes, partition))) expect(['part-0.parquet', '_SUCCESS']).toContain(name);
  }
}
