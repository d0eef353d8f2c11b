import { describe, expect } from 'vitest';
import type { RequestLogEntry } from '../../src/emulator/index.js';
import { RATE_LIMITS } from '../../src/service/index.js';
import { RATE_SCALE, LIMITED_RATE_SCALE } from '../helpers/rate-scale.js';
import { ndjson, people, webhookPosts } from '../push/helpers/emulator.js';
import {
  addRows,
  columnValues,
  expectEachOnce,
  KEY_EMULATOR,
  mostAtOnce,
  mostInWindow,
  webhookTable,
  keyedPush,
} from './push-key-support.js';
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
    const args = keyedPush(harness, path, '--skip-existing', '--json');
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

  test("--skip-existing by a text key: the chains of the windows' queries overlap, and each key is sent once or not at all", async ({
    openHarness,
  }) => {
    const harness = await openHarness({ ...KEY_EMULATOR, rateLimits: true, rateScale: RATE_SCALE, latency: { ms: 50, jitterMs: 0 } });
    const table = await webhookTable(harness, 'Codes', [{ label: 'Code', type: 'text', mapKey: 'code' }]);
    // keys of 13 characters: `in` lists of 62 a rule, so a window is the 11 batches (5,500 keys) that fill
    // one query, the smallest window mark-existing.ts makes (keysPerQuery); the 500 after them are another
    // window and query. The table holds 367 of the first window's keys (a chain of 4 pages), 100 of the
    // second's, and 6,500 other rows (so that queries, up to 60 requests, cost less than reading it whole,
    // 69 pages, however many are found)
    const codes = Array.from({ length: 6000 }, (_, i) => `k${String(i + 1).padStart(12, '0')}`);
    const held = codes.filter((_, i) => (i < 5500 ? i % 15 === 0 : i % 5 === 0));
    const others = Array.from({ length: 6500 }, (_, i) => ({ Code: `other-${i}` }));
    await addRows(harness, table.id, [...others, ...held.map((code) => ({ Code: code }))]);
    const path = await harness.file('codes.ndjson', ndjson(codes.map((code) => ({ code }))));
    const since = harness.emu.requestLog.length;
    const args = ['push', table.url, path, '--key', 'code', '--table', 'Codes', '--skip-existing', '--json'];
    const result = await harness.tds(args);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).key.existing).toBe(held.length);
    const log = harness.emu.requestLog.slice(since);
    expect(rowReads(log).filter((entry) => entry.status === 429)).toHaveLength(0);
    expect(mostInWindow(rowReads(log), RATE_LIMITS.rows.perMs / RATE_SCALE)).toBeLessThanOrEqual(RATE_LIMITS.rows.requests);
    // the lookups: the queries before the last batch was sent (the check that the keys show comes after)
    const lookups = rowReads(
      log.slice(
        0,
        log.findLastIndex((entry) => entry.bucket === 'webhook'),
      ),
    ).filter((entry) => entry.method === 'POST');
    expect(lookups.length).toBeGreaterThanOrEqual(4 + 1);
    // one window after another before: the second window's query waited for the whole chain of the first's
    expect(mostAtOnce(lookups)).toBeGreaterThan(1);
    expect(webhookPosts(harness.emu).reduce((sum, post) => sum + (post.objects ?? 0), 0)).toBe(codes.length - held.length);
    expectEachOnce(await columnValues(harness.emu, table.id, 'Code'), [...others.map((row) => row.Code), ...codes]);
    // 5,533 records sent and their rows waited for, 50 ms away
  }, 60_000);
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
    const args = keyedPush(harness, path, '--wait', 'settled', '-o', 'out.csv', '--json');
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
