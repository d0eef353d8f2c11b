import { expect, vi } from 'vitest';
import type { RequestLogEntry } from '../../src/emulator/index.js';
import { ndjson, people, webhookRequests, type PushHarness } from '../push/helpers/emulator.js';
import { columnValues, expectEachOnce, KEY_EMULATOR, SLOW_INTAKE_SCALE, otherWriter } from './push-key-support.js';
import type { SpawnedTds } from '../helpers/spawn-tds.js';
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

/**
 * Barriers on a push's arrivals at the emulator, from `arm()` on: its four first batches (the ones the faults
 * answer) are each held until all four have arrived, so none is answered before the four are in flight (a slow
 * start could otherwise have the first answered and reconciled alone, and batch 5 sent with the others); the
 * push's first read of the table once the four have been answered (its lookup for the uncertain batches) is
 * held until `atLookup` has done.
 */
function fourBatchesInFlight(harness: () => PushHarness, atLookup: () => Promise<void> | void) {
  let armed = false;
  let arrived = 0;
  let looked = false;
  let allArrived!: () => void;
  const four = new Promise<void>((resolve) => (allArrived = resolve));
  const onArrival = async ({ method, path }: { method: string; path: string }): Promise<void> => {
    if (!armed || looked) return;
    if (path.startsWith('/v1/webhook/')) {
      if (method !== 'POST' || arrived >= 4) return;
      if (++arrived === 4) allArrived();
      return four;
    }
    if (arrived < 4) return;
    looked = true;
    await vi.waitFor(() => expect(batchPosts(harness()).filter((post) => post.status === 500)).toHaveLength(4), {
      timeout: 30_000,
      interval: 5,
    });
    await atLookup();
  };
  return { onArrival, arm: () => (armed = true) };
}

test('(issue 20) every batch before the reconciliation answered 500 after storing, another client posting meanwhile: each key once, exit 0', async ({
  openHarness,
}) => {
  // request 1 is the HEAD check, 2–5 the four first batches; the other client starts at the push's lookup and
  // that lookup waits for its third post: however slow the machine, the intake is kept open meanwhile
  let started = false;
  const barriers = fourBatchesInFlight(
    () => harness,
    async () => {
      started = true;
      await other.answered(3);
    },
  );
  const harness: PushHarness = await openHarness({ ...KEY_EMULATOR, webhookFaults: '500@2-5', onArrival: barriers.onArrival });
  const other = otherWriter(harness.inbox.url, { everyMs: 1500 / RATE_SCALE, max: 1000, begin: () => started });
  try {
    const path = await harness.file('leads.ndjson', ndjson(people(500)));
    barriers.arm();
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
  // a slower scale (SLOW_INTAKE_SCALE) so the resumed run is up before the intake takes the rows in. The
  // first run is killed (SIGKILL) once the four batches have been answered 500 (their rows stored, still in
  // the intake), while it waits to reconcile them; its lookup for them, should it come first, waits for the kill.
  let first: SpawnedTds | undefined;
  const kill = async (): Promise<void> => {
    first!.child.kill('SIGKILL');
    await first!.ended;
  };
  const barriers = fourBatchesInFlight(() => harness, kill);
  const harness: PushHarness = await openHarness({
    ...KEY_EMULATOR,
    rateScale: SLOW_INTAKE_SCALE,
    webhookFaults: '500@2-5',
    onArrival: barriers.onArrival,
  });
  try {
    const path = await harness.file('leads.ndjson', ndjson(people(500)));
    const args = ['push', harness.inbox.url, path, ...ARGS];
    barriers.arm();
    first = harness.spawn(args, { stdio: ['ignore', 'ignore', 'pipe'] });
    await vi.waitFor(() => expect(batchPosts(harness).filter((post) => post.status === 500)).toHaveLength(4), {
      timeout: 30_000,
      interval: 2,
    });
    await kill();
    expect((await first.ended).signal, first.stderr()).toBe('SIGKILL');
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
