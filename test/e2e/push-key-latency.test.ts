import { describe, expect } from 'vitest';
import type { RequestLogEntry } from '../../src/emulator/index.js';
import { RATE_LIMITS } from '../../src/service/index.js';
import { RATE_SCALE, LIMITED_RATE_SCALE } from '../helpers/rate-scale.js';
import { ndjson, people, webhookPosts } from '../push/helpers/emulator.js';
import { addRows, columnValues, expectEachOnce, KEY_EMULATOR, mostAtOnce, mostInWindow } from './push-key-support.js';
import { pushTest as test } from './push-support.js';

// Push by key to a far service (the emulator's --latency), at the row-read limit: the key lookups
// overlap (about the limit's rate × the round trip in flight) and the settled wait spaces its polls to
// the row-read budget. Counts and order from the emulator's request log, no clocks.

const rowReads = (entries: RequestLogEntry[]): RequestLogEntry[] => entries.filter((entry) => entry.bucket === 'rows');

describe('push by key 50 ms away, at the row-read limit', () => {
  test('--skip-existing: the lookups overlap, never past the limit, and each key is sent once or not at all', async ({ openHarness }) => {
    const harness = await openHarness({ ...KEY_EMULATOR, rateLimits: true, rateScale: RATE_SCALE, latency: { ms: 50, jitterMs: 0 } });
    // 2,000 e-mail keys (21 queries of 97 `=` rules), half of them in a table of 3,000 other rows
    const records = people(2000);
    await addRows(harness, harness.inbox.id, [
      ...Array.from({ length: 3000 }, (_, i) => ({ Email: `other${i}@elsewhere.org` })),
      ...records.filter((_, i) => i % 2 === 0).map((record) => ({ Email: record.email })),
    ]);
    const path = await harness.file('leads.ndjson', ndjson(records));
    const args = ['push', harness.inbox.url, path, '--key', 'email', '--table', 'Inbox', '--skip-existing', '--json'];
    const result = await harness.tds(args);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).key.existing).toBe(1000);
    const reads = rowReads(harness.emu.requestLog);
    expect(reads.filter((entry) => entry.status === 429)).toHaveLength(0);
    expect(reads.length).toBeGreaterThanOrEqual(21);
    // one at a time before: the round trip of each in turn
    expect(mostAtOnce(reads)).toBeGreaterThan(1);
    expect(mostInWindow(reads, RATE_LIMITS.rows.perMs / RATE_SCALE)).toBeLessThanOrEqual(RATE_LIMITS.rows.requests);
    expect(webhookPosts(harness.emu).reduce((sum, post) => sum + (post.objects ?? 0), 0)).toBe(1000);
    expectEachOnce(
      await columnValues(harness.emu, harness.inbox.id, 'Email'),
      records.map((record) => String(record.email)),
    );
  });
});

describe('--wait settled at the row-read limit', () => {
  test('polls within the row-read budget, and reads again only up to the first row still running', async ({ openHarness }) => {
    // a fifth of the suite's scale: each window long enough that the limit, not timer slop, decides
    const harness = await openHarness({
      ...KEY_EMULATOR,
      rateLimits: true,
      rateScale: LIMITED_RATE_SCALE,
      actionDelayMs: 3000 / LIMITED_RATE_SCALE,
    });
    // 1,000 rows: a whole read of them is 10 row requests; the actions take two steps of 3 s (scaled)
    const records = people(1000);
    const path = await harness.file('leads.ndjson', ndjson(records));
    const args = ['push', harness.inbox.url, path, '--key', 'email', '--table', 'Inbox', '--wait', 'settled', '-o', 'out.csv', '--json'];
    const result = await harness.tds(args);
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout) as { wait: { complete: boolean; settled: number; requests: number } };
    expect(summary.wait).toMatchObject({ complete: true, settled: 1000 });
    const log = harness.emu.requestLog;
    const lastPost = log.findLastIndex((entry) => entry.bucket === 'webhook');
    const waitReads = rowReads(log.slice(lastPost + 1));
    expect(rowReads(log).filter((entry) => entry.status === 429)).toHaveLength(0);
    // the polls alone never spend the limit of a window
    expect(mostInWindow(waitReads, RATE_LIMITS.rows.perMs / LIMITED_RATE_SCALE)).toBeLessThan(RATE_LIMITS.rows.requests);
    // each poll reads the table's rowCount first (a metadata request)
    const polls = log.slice(lastPost + 1).filter((entry) => entry.bucket === 'metadata').length;
    // one page a poll while the newest rows run, a whole read (10 pages) once they are done; every poll
    // read all 10 pages before
    expect(waitReads.length).toBeLessThanOrEqual(polls + 10 + 5);
  });
});
