import { describe, expect } from 'vitest';
import { ApiClient } from '../../src/http/client.js';
import { serviceTimings } from '../../src/http/rate-limiter.js';
import { runSync } from '../../src/mirror/sync-run.js';
import type { Row } from '../../src/service/index.js';
import { memoryContext } from '../helpers/context.js';
import { test as it, type Harness } from '../helpers/emulator-fixture.js';
import { RATE_SCALE } from '../helpers/rate-scale.js';

// A first sync appends its rows straight into the mirror table (mirror-writer.ts); a row that moved while
// the pass read (served again on a later page) is refused by the primary key there, and the pass reads the
// pages since its saved progress again, the general way: each row once, counted once.

const ROWS = 250;

async function plainTable(harness: Harness): Promise<string> {
  const created = await harness.admin<{ table: { id: string } }>('POST', '/tables', {
    workspace: 'Sales',
    name: 'Plain',
    fields: [{ label: 'Name', type: 'text' }],
  });
  const at = Date.now() - 86_400_000;
  const rows = Array.from({ length: ROWS }, (_, i) => ({ cells: { Name: `row ${i}` }, createdAt: new Date(at + i * 1000).toISOString() }));
  await harness.admin('POST', `/tables/${created.table.id}/rows`, { rows });
  return created.table.id;
}

const count = async (harness: Harness, sql: string): Promise<number> => {
  const result = await harness.tds(['sql', sql, '--format', 'csv']);
  expect(result.code, result.stderr).toBe(0);
  return Number(result.stdout.trim().split('\n')[1]);
};

describe('a first sync over rows that move while it reads', () => {
  it('a row served again on a later page: the pages are read again from the saved progress, each row mirrored once', async ({ open }) => {
    const harness = await open();
    await plainTable(harness);
    const { ctx, stdout } = memoryContext();
    const client = new ApiClient({
      baseUrl: harness.baseUrl,
      apiKey: harness.apiKey,
      timings: serviceTimings(RATE_SCALE),
      signal: ctx.signal,
    });
    // every page after the first starts with the newest row again, as if it had moved down the list
    const rowsPage = client.rowsPage.bind(client);
    let newest: Row | undefined;
    let pages = 0;
    client.rowsPage = async (...args) => {
      pages += 1;
      const page = await rowsPage(...args);
      if (args[1]?.cursor === undefined) newest ??= page.rows[0];
      else if (newest) page.rows.unshift(newest);
      return page;
    };
    try {
      await runSync(ctx, client, { tables: ['Plain'], workspaces: [], all: false, db: harness.db, full: false, json: true });
    } finally {
      await client.close();
    }
    expect(JSON.parse(stdout()).tables[0]).toMatchObject({ mode: 'full', complete: true, inserted: ROWS, updated: 0, missing: 0 });
    expect(await count(harness, 'SELECT count(DISTINCT "_id") FROM plain')).toBe(ROWS);
    expect(await count(harness, 'SELECT count(*) FROM plain')).toBe(ROWS);
    expect(await count(harness, 'SELECT count(*) FROM plain__history')).toBe(0);
    // three pages, and at least one read again after the refusal (which pages a group holds depends on the machine's speed)
    expect(pages).toBeGreaterThan(3);
  });
});
