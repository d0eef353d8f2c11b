import { readFile } from 'node:fs/promises';
import { describe, expect, vi } from 'vitest';
import { expectSameRecords, journalOf, ndjson, people, tablePayloads, webhookPosts } from '../push/helpers/emulator.js';
import { accepted, postedObjects } from '../helpers/scripted-server.js';
import { waitUntil } from './export-support.js';
import { pushTest as it, scriptedWebhook, stdinPush } from './push-support.js';
import { LIMITED_RATE_SCALE } from '../helpers/rate-scale.js';

// Failures of the webhook, end to end: every record must end up in the table exactly once when the
// user follows what tds says. Waits are scaled down with TDS_RATE_SCALE (helpers/rate-scale.ts).

describe('tds push: webhook failures', () => {
  it('resends after 429s with and without retry-after: every record exactly once', async ({ openHarness }) => {
    const harness = await openHarness({ webhookFaults: '429@2,429bare@4,429@5' });
    const records = people(50);
    const path = await harness.file('p.ndjson', ndjson(records));
    const result = await harness.tds(['push', harness.inbox.url, path, '--batch-size', '10', '--json', '-v']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).records).toMatchObject({ sent: 50, uncertain: 0, notSent: 0 });
    expect(webhookPosts(harness.emu).map((post) => post.status)).toEqual([429, 200, 429, 429, 200, 200, 200, 200]);
    expect(result.stderr).toMatch(/POST http:\/\/127\.0\.0\.1:\d+\/v1\/webhook\/….{4} 429/);
    expectSameRecords(await tablePayloads(harness.emu, harness.inbox.id), records);
  });

  it('after a 500 that stored the rows: exit 7 naming the uncertain records, nothing more sent; --resume alone completes the table exactly once, --accept-uncertain concludes the journal', async ({
    openHarness,
  }) => {
    // request 1 is the HEAD, so 500@4 hits the third batch (records 21–30)
    const harness = await openHarness({ webhookFaults: '500@4' });
    const records = people(60);
    const path = await harness.file('p.ndjson', ndjson(records));
    const first = await harness.tds(['push', harness.inbox.url, path, '--batch-size', '10', '--concurrency', '1']);
    expect(first.code, first.stderr).toBe(7);
    expect(first.stderr).toMatch(/10 records are uncertain \(records 21–30, batch 3: HTTP 500: /);
    expect(first.stderr).toMatch(/check the table for records 21–30 \(e\.g\. `tds rows TABLE`\)/);
    expect(first.stderr).toContain('--resume --resend-uncertain 3');
    expect(webhookPosts(harness.emu)).toHaveLength(3); // no batch after the uncertain one
    const journal = (await readFile((await journalOf(path))!, 'utf8'))
      .trim()
      .split('\n')
      .slice(1)
      .map((line) => JSON.parse(line));
    expect(journal.filter((entry) => entry.state === 'uncertain')).toMatchObject([{ batch: 3, first: 21, last: 30, status: 500 }]);

    // the user checks the table: records 21–30 are there, so --resume alone
    const payloads = await tablePayloads(harness.emu, harness.inbox.id);
    expect(payloads).toContainEqual(records[20]);
    const resumed = await harness.tds(['push', harness.inbox.url, path, '--batch-size', '10', '--resume', '--json']);
    expect(resumed.code, resumed.stderr).toBe(7); // still reports the uncertain batch it left alone
    expect(JSON.parse(resumed.stdout).records).toMatchObject({ sent: 30, alreadySent: 20, uncertain: 10, notSent: 0 });
    expect(webhookPosts(harness.emu)).toHaveLength(6);
    expectSameRecords(await tablePayloads(harness.emu, harness.inbox.id), records);

    // the rows are there: --accept-uncertain records that in the journal; later resumes have nothing left to do
    const settled = await harness.tds(['push', harness.inbox.url, path, '--batch-size', '10', '--resume', '--accept-uncertain', '--json']);
    expect(settled.code, settled.stderr).toBe(0);
    expect(JSON.parse(settled.stdout).records).toMatchObject({ sent: 0, alreadySent: 60, uncertain: 0 });
    const again = await harness.tds(['push', harness.inbox.url, path, '--batch-size', '10', '--resume']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('nothing to send');
    expect(webhookPosts(harness.emu)).toHaveLength(6);
    expectSameRecords(await tablePayloads(harness.emu, harness.inbox.id), records);
  });

  it('after a 500, the batches in flight finish and no request starts once the 500 was answered', async ({ openHarness }) => {
    // POSTs 1 and 3 are held at the webhook until tds has journaled the 500 of POST 2, so tds knows of it
    // while two senders are about to be free; POST 2 is answered only once POST 3 arrived (all three in flight).
    const harness = await openHarness();
    const path = await harness.file('p.ndjson', ndjson(people(60)));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let third!: () => void;
    const thirdArrived = new Promise<void>((resolve) => (third = resolve));
    const arrivals: Array<{ post: number; at: number }> = [];
    let answered500At = Infinity;
    let posts = 0;
    const server = await scriptedWebhook(async (request) => {
      if (request.method === 'HEAD') return { status: 200 };
      const post = (posts += 1);
      arrivals.push({ post, at: performance.now() });
      if (post === 3) third();
      if (post === 2) {
        await thirdArrived;
        answered500At = performance.now();
        return { status: 500, body: { message: 'internal error' } };
      }
      await released;
      return accepted(request);
    });
    const run = harness.tds(['push', server.url, path, '--batch-size', '10', '--concurrency', '3']);
    await vi.waitFor(async () => {
      const journal = await journalOf(path);
      expect(journal ? await readFile(journal, 'utf8') : '').toContain('"state":"uncertain"');
    }, 20_000);
    release();
    const result = await run;
    expect(result.code, result.stderr).toBe(7);
    expect(result.stderr).toMatch(/10 records are uncertain \(records 11–20, batch 2: HTTP 500: internal error\)/);
    expect(result.stderr).toMatch(/sent +20 in 2 batches/);
    expect(arrivals.map((arrival) => arrival.post)).toEqual([1, 2, 3]);
    expect(arrivals.filter((arrival) => arrival.at > answered500At)).toEqual([]);
  });

  it('after a 500 that stored nothing: --resume --resend-uncertain sends that batch again, exactly once in all', async ({
    openHarness,
  }) => {
    const stored: unknown[] = [];
    const server = await scriptedWebhook((request) => {
      if (request.method === 'HEAD') return { status: 200 };
      if (request.n === 3) return { status: 500, body: { message: 'internal error' } };
      stored.push(...postedObjects(request));
      return accepted(request);
    });
    const harness = await openHarness();
    const records = people(40);
    const path = await harness.file('p.ndjson', ndjson(records));
    const args = ['push', server.url, path, '--batch-size', '10', '--concurrency', '1'];
    const first = await harness.tds(args);
    expect(first.code, first.stderr).toBe(7);
    expect(first.stderr).toMatch(/records 11–20/);
    expect(first.stderr).not.toContain('wh_test_secret');
    // the user checks: records 11–20 are missing
    expect(stored).not.toContainEqual(records[10]);
    const plain = await harness.tds([...args, '--resume']);
    expect(plain.code, plain.stderr).toBe(7);
    expect(stored).not.toContainEqual(records[10]); // --resume alone never re-sends an uncertain batch
    const resend = await harness.tds([...args, '--resume', '--resend-uncertain']);
    expect(resend.code, resend.stderr).toBe(0);
    expectSameRecords(stored, records);
  });

  it('makes a reset connection or a stalled response uncertain (after --timeout)', async ({ openHarness }) => {
    const harness = await openHarness({ webhookFaults: 'reset@3,stall@5' });
    const path = await harness.file('p.ndjson', ndjson(people(30)));
    const args = ['push', harness.inbox.url, path, '--batch-size', '10', '--concurrency', '1', '--timeout', '0.5'];
    const first = await harness.tds(args);
    expect(first.code, first.stderr).toBe(7);
    expect(first.stderr).toMatch(/uncertain \(records 11–20, batch 2: connection reset/);
    // fault positions count on: the resent batch 2 now stalls
    const second = await harness.tds([...args, '--resume', '--resend-uncertain']);
    expect(second.code, second.stderr).toBe(7);
    expect(second.stderr).toMatch(/uncertain \(records 11–20, batch 2: no response in time \(UND_ERR_HEADERS_TIMEOUT\)\)/);
    expect(webhookPosts(harness.emu).map((post) => post.fault ?? post.status)).toEqual([200, 'reset', 'stall']);
  });

  it('resumes a stdin push from its --journal, and refuses a different stdin without sending', async ({ openHarness }) => {
    const harness = await openHarness({ webhookFaults: '503@4' });
    const records = people(50);
    const args = stdinPush(harness, 'stdin.journal');
    const first = await harness.tds(args, { input: ndjson(records) });
    expect(first.code, first.stderr).toBe(7);
    expect(first.stderr).toMatch(/records 21–30/);
    expect(first.stderr).toMatch(/not sent yet\s+the rest of stdin/);
    const other = await harness.tds([...args, '--resume'], { input: ndjson(people(50, 1000)) });
    expect(other.code, other.stderr).toBe(2);
    expect(other.stderr).toMatch(/does not match the journal .*stdin\.journal: batch 1: /);
    expect(webhookPosts(harness.emu)).toHaveLength(3);
    const resumed = await harness.tds([...args, '--resume', '--json'], { input: ndjson(records) });
    expect(resumed.code, resumed.stderr).toBe(7); // the uncertain batch is left alone
    expect(JSON.parse(resumed.stdout).records).toMatchObject({ alreadySent: 20, sent: 20, uncertain: 10, notSent: 0 });
    expectSameRecords(await tablePayloads(harness.emu, harness.inbox.id), records); // the 503 came after the rows were stored
  });

  it('Ctrl-C mid-run: the batches in flight finish and are journaled (exit 130); --resume sends the rest, each record once', async ({
    openHarness,
  }) => {
    // the batches after the fifth are held on their arrival until the SIGINT is sent: it comes mid-run
    // however fast the run sends
    let posts = 0;
    let interrupted!: () => void;
    const signalled = new Promise<void>((resolve) => (interrupted = resolve));
    const harness = await openHarness({
      onArrival: async ({ method, path }) => {
        if (method === 'POST' && path.startsWith('/v1/webhook/') && ++posts > 5) await signalled;
      },
    });
    const records = people(400);
    const path = await harness.file('p.ndjson', ndjson(records));
    const args = ['push', harness.inbox.url, path, '--batch-size', '5', '--rate', '20'];
    const run = harness.spawn(args, { env: { TDS_API_KEY: undefined } });
    await waitUntil(() => posts > 5, 15_000, 'a sixth batch sent');
    run.child.kill('SIGINT');
    interrupted();
    const code = await run.exit;
    expect(code, run.stderr()).toBe(130);
    expect(run.stderr()).toContain('--resume');
    const sentBefore = webhookPosts(harness.emu).length;
    expect(sentBefore).toBeLessThan(80);
    const journal = (await readFile((await journalOf(path))!, 'utf8'))
      .trim()
      .split('\n')
      .slice(1)
      .map((line) => JSON.parse(line));
    expect(journal.filter((entry) => entry.state === 'accepted')).toHaveLength(sentBefore);
    const last = new Map(journal.map((entry) => [entry.batch, entry.state]));
    expect([...last.values()].every((state) => state === 'accepted' || state === 'unsent')).toBe(true);

    const resumed = await harness.tds([...args.filter((arg) => arg !== '--rate' && arg !== '20'), '--resume', '--json']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout).records).toMatchObject({ alreadySent: sentBefore * 5, sent: 400 - sentBefore * 5 });
    expectSameRecords(await tablePayloads(harness.emu, harness.inbox.id), records);
  });

  it('keeps to the webhook rate limit at full speed (emulator and client at LIMITED_RATE_SCALE): each record once', async ({
    openHarness,
  }) => {
    const harness = await openHarness({ rateLimits: true, rateScale: LIMITED_RATE_SCALE });
    const records = people(1500);
    const path = await harness.file('p.ndjson', ndjson(records));
    const result = await harness.tds(['push', harness.inbox.url, path, '--batch-size', '5', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const posts = webhookPosts(harness.emu);
    const limited = posts.filter((post) => post.status === 429).length;
    expect(limited).toBeLessThanOrEqual(3);
    expect(posts.filter((post) => post.status === 200)).toHaveLength(300);
    // 300 requests at 100 per 50 ms take at least 100 ms
    expect(posts.at(-1)!.at - posts[0]!.at).toBeGreaterThanOrEqual(100);
    expectSameRecords(await tablePayloads(harness.emu, harness.inbox.id), records);
  });
});
