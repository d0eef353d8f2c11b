import { describe, expect } from 'vitest';
import type { RequestLogEntry } from '../../src/emulator/index.js';
import { RATE_LIMITS } from '../../src/service/index.js';
import { RATE_SCALE } from '../helpers/rate-scale.js';
import { test as it } from '../helpers/emulator-fixture.js';
import { everyTypeTable } from '../mirror/helpers.js';
import { mostInWindow } from './push-key-support.js';
import { addEveryTypeRows, expectMirrorEqualsService, syncTables } from './sync-support.js';

// The tables of one sync are read at once (each table's pages are a chain of cursors, the chains of
// two tables are not), and written one at a time: the mirror is the same as one table after another
// makes it, within the row-read limit. Order and counts from the emulator's request log, no clocks.

const TABLES = 4;
/** Four pages a table, 100 ms away: each chain outlasts the making of the next table's mirror table. */
const ROWS = 400;

/** Each table's row reads: when the first arrived, and when the last one's answer left. */
function chainSpans(reads: RequestLogEntry[]): Map<string, { first: number; lastEnd: number }> {
  const spans = new Map<string, { first: number; lastEnd: number }>();
  for (const entry of reads) {
    const tableId = /\/tables\/([^/]+)\/rows/.exec(entry.path)?.[1] ?? '';
    const span = spans.get(tableId) ?? { first: entry.at, lastEnd: 0 };
    span.first = Math.min(span.first, entry.at);
    span.lastEnd = Math.max(span.lastEnd, entry.at + entry.durationMs);
    spans.set(tableId, span);
  }
  return spans;
}

describe('tds sync of several tables 100 ms away', () => {
  it('reads the tables at once, within the row-read limit, and mirrors each as a sync of it alone does', async ({ open }) => {
    const harness = await open({ rateLimits: true, rateScale: RATE_SCALE, latency: { ms: 100, jitterMs: 0 } });
    const tables = [];
    for (let i = 1; i <= TABLES; i += 1) {
      const table = await everyTypeTable(harness, `Every Type ${i}`);
      await addEveryTypeRows(harness, table.id, { count: ROWS, from: i * 1000 });
      tables.push(table);
    }
    const since = harness.emu.requestLog.length;
    const synced = await syncTables(
      harness,
      tables.map((table) => table.id),
    );
    // the summary and the mirror tables' names in the tables' order, as one after another gives them
    expect(synced.map((table) => [table.mirrorTable, table.complete])).toEqual(tables.map((_, i) => [`every_type_${i + 1}`, true]));
    const reads = harness.emu.requestLog.slice(since).filter((entry) => entry.bucket === 'rows');
    for (const [i, table] of tables.entries()) await expectMirrorEqualsService(harness, table.id, `every_type_${i + 1}`);

    expect(reads.filter((entry) => entry.status === 429)).toEqual([]);
    expect(reads.length).toBe(TABLES * Math.ceil(ROWS / 100));
    expect(mostInWindow(reads, RATE_LIMITS.rows.perMs / RATE_SCALE)).toBeLessThanOrEqual(RATE_LIMITS.rows.requests);
    // one after another, each table's first page was asked for after the last page of the one before came
    const spans = [...chainSpans(reads).values()].sort((a, b) => a.first - b.first);
    expect(spans).toHaveLength(TABLES);
    const overlapping = spans.slice(1).filter((span, i) => span.first < spans[i]!.lastEnd);
    expect(overlapping.length).toBeGreaterThan(0);
  }, 60_000);
});
