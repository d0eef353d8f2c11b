import { expect } from 'vitest';
import type { RequestLogEntry } from '../../src/emulator/index.js';
import { ndjson, people, webhookRequests, type PushHarness } from '../push/helpers/emulator.js';
import { columnValues, expectEachOnce, KEY_EMULATOR, SLOW_INTAKE_SCALE, killAfterPosts, otherWriter } from './push-key-support.js';
import { RATE_SCALE } from '../helpers/rate-scale.js';
import { pushTest as test } from './push-support.js';

// Issue 20, item 1: another client of the same webhook (a live form, another pipeline) keeps its intake
// open, so rows show up to the longest window after a request (docs/service-api.md 4.7 rule 4), not a quiet
// period after the push's own last one. Uncertain batches must not be declared missing before then.
// The emulator and tds run on one scale (40): the other client posts every 1.5 s / 40.

const emails = (n: number): string[] => people(n).map((person) => String(person.email));
// four batches in flight at most, so the four first are the ones the faults answer (a far webhook would have more)
const ARGS = ['--key', 'email', '--table', 'Inbox', '--batch-size', '100', '--concurrency', '4'];

interface Summary {
  records: { read: number; sent: number; uncertain: number };
  key: { duplicates: number; settled: number };
}

/** Posts of the other client (one object each) logged between two entries of the push. */
function otherPostsBetween(log: RequestLogEntry[], from: RequestLogEntry, to: RequestLogEntry): number {
  return log.slice(log.indexOf(from) + 1, log.indexOf(to)).filter((entry) => entry.method === 'POST' && entry.objects === 1).length;
}

/** The push's own POSTs (batches of 100), in order. */
const batchPosts = (harness: PushHarness): RequestLogEntry[] => webhookRequests(harness.emu).filter((entry) => (entry.objects ?? 0) > 1);

test('(issue 20) every batch before the reconciliation answered 500 after storing, another client posting meanwhile: each key once, exit 0', async ({
  openHarness,
}) => {
  // request 1 is the HEAD check, 2–5 the four batches first in flight; the other client starts then
  const harness = await openHarness({ ...KEY_EMULATOR, webhookFaults: '500@2-5' });
  try {
    const path = await harness.file('leads.ndjson', ndjson(people(500)));
    const other = otherWriter(harness.inbox.url, {
      everyMs: 1500 / RATE_SCALE,
      max: 1000,
      begin: () => webhookRequests(harness.emu).length >= 5,
    });
    const result = await harness.tds(['push', harness.inbox.url, path, ...ARGS, '--json']);
    await other.stop();
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout) as Summary;
    expect(summary.records).toMatchObject({ read: 500, sent: 100, uncertain: 0 });
    expect(summary.key).toMatchObject({ duplicates: 0, settled: 400 });
    expectEachOnce(await columnValues(harness.emu, harness.inbox.id, 'Email'), emails(500));
    // the four 500s, then only batch 5: nothing sent again; the other client posted in between
    const posts = batchPosts(harness);
    expect(posts.map((post) => post.status)).toEqual([500, 500, 500, 500, 200]);
    expect(otherPostsBetween(harness.emu.requestLog, posts[3]!, posts[4]!)).toBeGreaterThanOrEqual(3);
  } finally {
    await harness.close();
  }
});

test('(issue 20) killed while waiting to reconcile, resumed at once while another client posts: each key once, exit 0', async ({
  openHarness,
}) => {
  // a slower scale (SLOW_INTAKE_SCALE) so the resumed run is up before the intake takes the rows in
  const harness = await openHarness({ ...KEY_EMULATOR, rateScale: SLOW_INTAKE_SCALE, webhookFaults: '500@2-5' });
  try {
    const path = await harness.file('leads.ndjson', ndjson(people(500)));
    const args = ['push', harness.inbox.url, path, ...ARGS];
    // the four batches answered 500 (their rows stored, still in the intake): the push waits to reconcile them
    expect(await killAfterPosts(harness, args, 4)).toBe('killed after 4 posts');
    const other = otherWriter(harness.inbox.url, { everyMs: 1500 / SLOW_INTAKE_SCALE, max: 1000 });
    const result = await harness.tds([...args, '--resume', '--json']);
    await other.stop();
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout) as Summary;
    expect(summary.records).toMatchObject({ sent: 100, uncertain: 0 });
    expect(summary.key.settled).toBe(400);
    expectEachOnce(await columnValues(harness.emu, harness.inbox.id, 'Email'), emails(500));
    expect(batchPosts(harness).map((post) => post.status)).toEqual([500, 500, 500, 500, 200]);
  } finally {
    await harness.close();
  }
});
