import { describe, expect } from 'vitest';
import { closeMcp, connectMcp } from './mcp-support.js';
import { syncTables } from './sync-support.js';
import { test as it } from '../helpers/emulator-fixture.js';

// Issue 41, case 3: a span that begins before the table's first sync is refused (exit 2, MCP isError)
// naming the earliest moment the mirror answers for, instead of showing every row updated since as
// added; from that moment on, and from sync:0 (the table empty), it answers.

const ROWS = 12;

describe('tds diff from a moment before the first sync (issue 41)', () => {
  it('is refused naming the earliest moment, by the CLI and by MCP; from it, the updates alone', async ({ open }) => {
    const harness = await open();
    const created = await harness.admin<{ table: { id: string } }>('POST', '/tables', {
      workspace: 'Sales',
      name: 'Leads Later',
      fields: [{ label: 'Name', type: 'text' }],
    });
    const tableId = created.table.id;
    const days = Date.now() - 3 * 86_400_000;
    const added = await harness.admin<{ rows: Array<{ id: string }> }>('POST', `/tables/${tableId}/rows`, {
      rows: Array.from({ length: ROWS }, (_, i) => ({ cells: { Name: `lead ${i}` }, createdAt: new Date(days + i * 1000).toISOString() })),
    });
    // updated just before the first sync (an enrichment), and again after it
    const ids = added.rows.map((row) => row.id);
    for (const id of ids.slice(0, 4)) await harness.admin('PATCH', `/tables/${tableId}/rows/${id}`, { cells: { Name: 'enriched' } });
    await syncTables(harness, [tableId]);
    // the first sync's end is known to the second on the service's clock (its Date header), and counted at its latest
    await harness.admin('POST', '/clock', { advanceMs: 2000 });
    for (const id of ids.slice(0, 2)) await harness.admin('PATCH', `/tables/${tableId}/rows/${id}`, { cells: { Name: 'enriched again' } });
    await syncTables(harness, []);

    const early = await harness.tds(['diff', 'leads_later', '--since', '10m', '--summary', '--format', 'json']);
    expect(early.code, early.stdout).toBe(2);
    expect(early.stdout).toBe('');
    const refusal =
      /^tds: --since 10m \(\S+\) is before the mirror held leads_later: it answers for (\S+) \(the end of the table's first sync\) and later\nhint: give \1 or later, sync:N, or sync:0 \(before the first sync, the table empty\)\n$/;
    expect(early.stderr).toMatch(refusal);
    const earliest = refusal.exec(early.stderr)![1]!;
    expect((await harness.tds(['diff', 'leads_later', '--since', 'sync:-1', '--until', '1h'])).stderr).toMatch(/^tds: --until 1h /);

    // from the earliest moment: the two rows updated since, none added
    const since = await harness.tds(['diff', 'leads_later', '--since', earliest, '--summary', '--format', 'json']);
    expect(since.code, since.stderr).toBe(0);
    expect(JSON.parse(since.stdout)).toMatchObject({ added: 0, updated: 2, deleted: 0 });
    // sync:0: before the first sync, the table empty: every row added
    const empty = await harness.tds(['diff', 'leads_later', '--since', 'sync:0', '--summary', '--format', 'json']);
    expect(empty.code, empty.stderr).toBe(0);
    expect(JSON.parse(empty.stdout)).toMatchObject({ added: ROWS, updated: 0, deleted: 0 });

    const mcp = await connectMcp(harness);
    try {
      const refused = await mcp.call('diff_table', { table: 'leads_later', since: '1d' });
      expect(refused.isError).toBe(true);
      expect(refused.text).toMatch(
        new RegExp(`^tds: --since 1d \\(\\S+\\) is before the mirror held leads_later: it answers for ${earliest.replace(/\./g, '\\.')} `),
      );
      const answered = await mcp.call('diff_table', { table: 'leads_later', since: earliest });
      expect(answered.isError, answered.text).toBe(false);
      expect(answered.structured).toMatchObject({ counts: { added: 0, updated: 2, deleted: 0 } });
    } finally {
      await closeMcp(mcp);
    }
  });

  // simulator seed 322 (test/sim/histories/diff-first-sync-judged-on-this-machines-clock.json): the first
  // sync's end was judged on this machine's clock while moments are the service's
  it('judges the first sync on the service clock: hours ahead of this machine, a moment before it is refused', async ({ open }) => {
    const harness = await open();
    await harness.admin('POST', '/clock', { advanceMs: 6 * 3_600_000 });
    const created = await harness.admin<{ table: { id: string } }>('POST', '/tables', {
      workspace: 'Sales',
      name: 'Leads Ahead',
      fields: [{ label: 'Name', type: 'text' }],
    });
    const tableId = created.table.id;
    const added = await harness.admin<{ rows: Array<{ id: string }> }>('POST', `/tables/${tableId}/rows`, {
      rows: Array.from({ length: 4 }, (_, i) => ({
        cells: { Name: `lead ${i}` },
        createdAt: new Date(Date.now() - 86_400_000 + i).toISOString(),
      })),
    });
    await harness.admin('PATCH', `/tables/${tableId}/rows/${added.rows[0]!.id}`, { cells: { Name: 'enriched' } });
    await syncTables(harness, [tableId]);

    // an hour after this machine's now: after the sync by this machine's clock, five hours before it by the service's
    const moment = new Date(Date.now() + 3_600_000).toISOString();
    const asked = await harness.tds(['diff', 'leads_ahead', '--since', moment, '--summary', '--format', 'json']);
    expect(asked.code, asked.stdout).toBe(2);
    const earliest = /it answers for (\S+) \(the end of the table's first sync\)/.exec(asked.stderr)![1]!;
    expect(Date.parse(earliest)).toBeGreaterThan(Date.now() + 5 * 3_600_000);
    const from = await harness.tds(['diff', 'leads_ahead', '--since', earliest, '--summary', '--format', 'json']);
    expect(from.code, from.stderr).toBe(0);
    expect(JSON.parse(from.stdout)).toMatchObject({ added: 0, updated: 0, deleted: 0 });
  });
});
