import { describe, expect } from 'vitest';
import { expectSameRecords, ndjson, people, tablePayloads, webhookPosts } from '../push/helpers/emulator.js';
import { pushTest } from './push-support.js';
import { columnValues, expectEachOnce, KEY_EMULATOR, mostAtOnce } from './push-key-support.js';

// A push to a far service (the emulator's --latency): requests in flight follow the webhook's rate ×
// the round trip, and the webhook's limit is never exceeded (the emulator answers 429 past it). Counts
// from the emulator's request log, no clocks: how many requests it held at once, how many it refused.

describe('tds push to a service 100 ms away', () => {
  pushTest(
    'keeps rate × round trip in flight (more than the old fixed 4), never past the limit: no 429, each record once',
    async ({ openHarness }) => {
      // the real webhook limit (100 a second) on both sides: no rate scale
      const harness = await openHarness({ rateLimits: true, rateScale: 1, latency: { ms: 100, jitterMs: 20 } });
      const records = people(1000);
      const path = await harness.file('p.ndjson', ndjson(records));
      const result = await harness.tds(['push', harness.inbox.url, path, '--batch-size', '5', '--json', '-v']);
      expect(result.code, result.stderr).toBe(0);
      const summary = JSON.parse(result.stdout) as { records: { sent: number }; network: { roundTripMs: number; inFlight: number } };
      expect(summary.records.sent).toBe(1000);
      expect(summary.network.roundTripMs).toBeGreaterThanOrEqual(80);
      expect(result.stderr).toMatch(/in flight: up to \d+ requests \(round trip \d+ ms/);
      const posts = webhookPosts(harness.emu);
      expect(posts.filter((post) => post.status === 429)).toHaveLength(0);
      expect(posts).toHaveLength(200);
      const most = mostAtOnce(posts);
      expect(most).toBeGreaterThan(4);
      expect(most).toBeLessThanOrEqual(64);
      harness.emu.flushIntake();
      expectSameRecords(await tablePayloads(harness.emu, harness.inbox.id), records);
    },
  );

  pushTest('--concurrency stays a ceiling the user sets', async ({ openHarness }) => {
    const harness = await openHarness({ latency: { ms: 60, jitterMs: 0 } });
    const path = await harness.file('p.ndjson', ndjson(people(200)));
    const result = await harness.tds(['push', harness.inbox.url, path, '--batch-size', '5', '--concurrency', '3']);
    expect(result.code, result.stderr).toBe(0);
    expect(mostAtOnce(webhookPosts(harness.emu))).toBeLessThanOrEqual(3);
  });

  pushTest('a burst of 429s under latency: sent again after retry-after, each record once', async ({ openHarness }) => {
    const harness = await openHarness({ rateScale: KEY_EMULATOR.rateScale, webhookFaults: '429@5-12', latency: { ms: 80, jitterMs: 20 } });
    const records = people(300);
    const path = await harness.file('p.ndjson', ndjson(records));
    const result = await harness.tds(['push', harness.inbox.url, path, '--batch-size', '5', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(webhookPosts(harness.emu).filter((post) => post.status === 429)).toHaveLength(8);
    harness.emu.flushIntake();
    expectSameRecords(await tablePayloads(harness.emu, harness.inbox.id), records);
  });

  pushTest(
    'a burst of 500s under latency, pushed by key: the uncertain batches settled by their keys, each record once',
    async ({ openHarness }) => {
      const harness = await openHarness({ ...KEY_EMULATOR, webhookFaults: '500@5-8,500pre@12-14', latency: { ms: 80, jitterMs: 20 } });
      const path = await harness.file('leads.ndjson', ndjson(people(150)));
      const args = ['push', harness.inbox.url, path, '--key', 'email', '--table', 'Inbox', '--batch-size', '5', '--json'];
      const result = await harness.tds(args);
      expect(result.code, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout).records.uncertain).toBe(0);
      const emails = people(150).map((person) => String(person.email));
      expectEachOnce(await columnValues(harness.emu, harness.inbox.id, 'Email'), emails);
    },
  );
});
