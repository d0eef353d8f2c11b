import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { TdsError } from '../../../src/core/errors.js';
import { batchId } from '../../../src/push/plan/batch.js';
import { batches, BOOM, FakeSettler, kinds, OK, run, statesOf } from '../helpers/keyed-sender.js';

describe('BatchSender with --key: uncertain batches reconciled by key', () => {
  it('does not stop at an uncertain outcome: reconciles the batch and sends the records not found as part k', async () => {
    const reconciler = new FakeSettler(new Set([4]));
    const { events, journal, stops, seen } = await run(batches(4), reconciler, (request) => (request.n === 2 ? BOOM : OK));
    expect(stops).toEqual([]);
    expect(seen.map((request) => request.records)).toEqual([
      [1, 2, 3],
      [4, 5, 6],
      [5, 6],
      [7, 8, 9],
      [10, 11, 12],
    ]);
    expect(kinds(events)).toEqual(['accepted:1', 'reconciled:2(1)', 'accepted:2.k', 'accepted:3', 'accepted:4']);
    expect(statesOf(journal, '2')).toEqual(['sending', 'uncertain', 'narrowed']);
    expect(statesOf(journal, '2.k')).toEqual(['sending', 'accepted']);
    expect(journal.find((entry) => entry.state === 'uncertain')).toMatchObject({ batch: 2, status: 500, reason: 'HTTP 500: boom' });
    expect(journal.find((entry) => entry.state === 'narrowed')).toMatchObject({
      batch: 2,
      first: 4,
      last: 6,
      count: 3,
      keep: [5, 6],
      why: 'settled',
    });
    expect(journal.find((entry) => entry.part === 'k' && entry.state === 'accepted')).toMatchObject({ first: 5, last: 6, count: 2 });
    // the uncertain batch is not reported as uncertain: it was reconciled
    expect(events.some((event) => event.kind === 'uncertain')).toBe(false);
    expect(reconciler.calls.map((call) => call.batches)).toEqual([['2']]);
    expect(reconciler.accepted).toEqual([
      ['1', true],
      ['2.k', true],
      ['3', true],
      ['4', true],
    ]);
  });

  it('asks the reconciler only once nothing is in flight, and starts no batch meanwhile', async () => {
    const reconciler = new FakeSettler(new Set());
    let failedAt = 0;
    const { log, stops, events } = await run(
      batches(9),
      reconciler,
      async (request) => {
        if (request.n === 2) {
          failedAt = Date.now();
          return BOOM;
        }
        await sleep(30);
        return OK;
      },
      { inFlightLimit: () => 3 },
    );
    expect(stops).toEqual([]);
    const found = log.indexOf('found');
    const failed = log.indexOf('journal 2 uncertain');
    expect(failed).toBeGreaterThan(0);
    expect(found).toBeGreaterThan(failed);
    // between the uncertain outcome and the reconciling, no request starts
    expect(log.slice(failed + 1, found).filter((line) => line.startsWith('start'))).toEqual([]);
    expect(log.slice(failed + 1, found).filter((line) => line.startsWith('end')).length).toBeGreaterThan(0);
    // every request started before it has ended
    const started = log.slice(0, found).filter((line) => line.startsWith('start')).length;
    expect(log.slice(0, found).filter((line) => line.startsWith('end'))).toHaveLength(started);
    expect(reconciler.calls[0]!.inFlight).toBe(0);
    // the webhook may have had a request until the last one ended
    expect(reconciler.calls[0]!.lastRequestAt).toBeGreaterThanOrEqual(failedAt);
    expect(reconciler.calls[0]!.lastRequestAt).toBeLessThanOrEqual(reconciler.calls[0]!.at);
    // the uncertain request, from when it left to when its answer came; and each request taken in
    const [sent] = reconciler.calls[0]!.sent;
    expect(sent!.start).toBeLessThanOrEqual(failedAt);
    expect(sent!.end).toBeGreaterThanOrEqual(failedAt);
    expect(reconciler.acceptedSent).toHaveLength(9);
    for (const taken of reconciler.acceptedSent) expect(taken.end).toBeGreaterThanOrEqual(taken.start);
    // nothing found: the whole batch goes again, first in the queue
    expect(log.slice(found + 1).find((line) => line.startsWith('start'))).toBe('start 4,5,6');
    expect(kinds(events).filter((kind) => kind.startsWith('accepted'))).toHaveLength(9);
  });

  it('holds a batch journaled as sending when a 5xx comes: it leaves only after the reconciling (regression: it left at once)', async () => {
    const reconciler = new FakeSettler(new Set());
    const order: string[] = [];
    reconciler.onFound = () => void order.push('found');
    let writing3!: () => void;
    const batch3Writing = new Promise<void>((resolve) => (writing3 = resolve));
    let answered500!: () => void;
    const known500 = new Promise<void>((resolve) => (answered500 = resolve));
    const { events, stops } = await run(
      batches(4),
      reconciler,
      async (request) => {
        order.push(`post ${request.records[0]}`);
        if (request.n === 2) {
          await batch3Writing;
          setImmediate(answered500);
          return BOOM;
        }
        return OK;
      },
      {
        inFlightLimit: () => 3,
        journal: {
          append: async (entry) => {
            if (entry.batch === 3 && entry.state === 'sending' && !entry.part) {
              writing3();
              await known500;
            }
            order.push(`${batchId({ number: entry.batch, part: entry.part ?? '' })} ${entry.state}`);
          },
        },
      },
    );
    expect(stops).toEqual([]);
    // batch 2's 500 came while batch 3's "sending" line was written: batch 3 did not leave then
    expect(order.slice(0, order.indexOf('found'))).toContain('3 unsent');
    // batch 3 did not leave until the uncertain batch 2 was reconciled; then it went
    expect(order.filter((line) => line === 'post 7')).toHaveLength(1);
    expect(reconciler.calls.map((call) => call.batches)).toEqual([['2']]);
    expect(reconciler.calls[0]!.inFlight).toBe(0);
    expect(order.indexOf('post 7')).toBeGreaterThan(order.indexOf('found'));
    expect(order.indexOf('found')).toBeGreaterThan(0);
    expect(
      kinds(events)
        .filter((kind) => kind.startsWith('accepted'))
        .sort(),
    ).toEqual(['accepted:1', 'accepted:2.k', 'accepted:3', 'accepted:4']);
  });

  it('journals `narrowed` with every record kept when no key is found, and sends them all again', async () => {
    const reconciler = new FakeSettler(new Set());
    const { events, journal, seen } = await run(batches(1), reconciler, (request) => (request.n === 1 ? BOOM : OK));
    expect(journal.map((entry) => [batchId({ number: entry.batch, part: entry.part ?? '' }), entry.state])).toEqual([
      ['1', 'sending'],
      ['1', 'uncertain'],
      ['1', 'narrowed'],
      ['1.k', 'sending'],
      ['1.k', 'accepted'],
    ]);
    expect(journal[2]).toMatchObject({ keep: [1, 2, 3], why: 'settled' });
    expect(seen.map((request) => request.records)).toEqual([
      [1, 2, 3],
      [1, 2, 3],
    ]);
    expect(kinds(events)).toEqual(['accepted:1.k']);
  });

  it('sends nothing again when every key is found', async () => {
    const reconciler = new FakeSettler(new Set([1, 2, 3]));
    const { events, journal, seen, stops } = await run(batches(2), reconciler, (request) => (request.n === 1 ? BOOM : OK));
    expect(stops).toEqual([]);
    expect(journal.find((entry) => entry.state === 'narrowed')).toMatchObject({ batch: 1, keep: [], why: 'settled' });
    expect(seen.map((request) => request.records)).toEqual([
      [1, 2, 3],
      [4, 5, 6],
    ]);
    expect(kinds(events)).toEqual(['reconciled:1(3)', 'accepted:2']);
  });

  it('reconciles part k again when its request is uncertain too (part k.k)', async () => {
    const reconciler = new FakeSettler(new Set([5]));
    const { journal, seen, events } = await run(batches(2), reconciler, (request) => (request.n <= 2 ? BOOM : OK));
    expect(seen.map((request) => request.records)).toEqual([
      [1, 2, 3],
      [1, 2, 3],
      [1, 2, 3],
      [4, 5, 6],
    ]);
    expect(statesOf(journal, '1.k')).toEqual(['sending', 'uncertain', 'narrowed']);
    expect(statesOf(journal, '1.k.k')).toEqual(['sending', 'accepted']);
    expect(reconciler.calls.map((call) => call.batches)).toEqual([['1'], ['1.k']]);
    expect(kinds(events)).toEqual(['accepted:1.k.k', 'accepted:2']);
  });

  it('reconciles uncertain batches together when several come back at once', async () => {
    const reconciler = new FakeSettler(new Set([1, 5]));
    const { journal, events } = await run(
      batches(3),
      reconciler,
      async (request) => {
        await sleep(5);
        return request.n <= 2 ? BOOM : OK;
      },
      { inFlightLimit: () => 2 },
    );
    expect(reconciler.calls.map((call) => call.batches)).toEqual([['1', '2']]);
    expect(journal.filter((entry) => entry.state === 'narrowed').map((entry) => [entry.batch, entry.keep])).toEqual([
      [1, [2, 3]],
      [2, [4, 6]],
    ]);
    expect(kinds(events).sort()).toEqual(['accepted:1.k', 'accepted:2.k', 'accepted:3', 'reconciled:1(1)', 'reconciled:2(1)']);
  });

  it('fails the run when reconciling fails, and sends nothing more', async () => {
    const reconciler = new FakeSettler(new Set());
    reconciler.fail = new TdsError('PUSH_INCOMPLETE', 'cannot reconcile uncertain records by key');
    const { stops, seen } = await run(batches(3), reconciler, (request) => (request.n === 1 ? BOOM : OK));
    expect(stops).toEqual([{ kind: 'failed', error: reconciler.fail }]);
    expect(seen).toHaveLength(1);
  });

  // reconcile-queue.ts reconcile() takes the batches out of `unreconciled` (splice) before found() answers;
  // when found() throws, leftOver() has nothing to report, so the batch the journal left uncertain
  // is never counted as uncertain (nor as anything else) in the summary.
  it('reports the batches it could not reconcile as uncertain when reconciling fails', async () => {
    const reconciler = new FakeSettler(new Set());
    reconciler.fail = new TdsError('PUSH_INCOMPLETE', 'cannot reconcile uncertain records by key');
    const { events } = await run(batches(3), reconciler, (request) => (request.n === 1 ? BOOM : OK));
    expect(kinds(events)).toContain('uncertain:1');
  });
});

describe('BatchSender with --skip-existing', () => {
  it('journals the records the table holds as narrowed (existing) before it sends the rest', async () => {
    const list = batches(3);
    list[0] = { ...list[0]!, existing: new Set([1, 2]) };
    list[1] = { ...list[1]!, existing: new Set([4, 5, 6]) };
    const reconciler = new FakeSettler(new Set());
    const { journal, seen, events } = await run(list, reconciler, () => OK);
    expect(journal.map((entry) => [batchId({ number: entry.batch, part: entry.part ?? '' }), entry.state])).toEqual([
      ['1', 'narrowed'],
      ['1.k', 'sending'],
      ['1.k', 'accepted'],
      ['2', 'narrowed'],
      ['3', 'sending'],
      ['3', 'accepted'],
    ]);
    expect(journal[0]).toMatchObject({ first: 1, last: 3, count: 3, keep: [3], why: 'existing' });
    expect(journal[3]).toMatchObject({ keep: [], why: 'existing' });
    expect(seen.map((request) => request.records)).toEqual([[3], [7, 8, 9]]);
    expect(kinds(events)).toEqual(['existing:1(2)', 'accepted:1.k', 'existing:2(3)', 'accepted:3']);
    expect(reconciler.calls).toEqual([]);
  });

  it('treats an empty `existing` set as nothing existing', async () => {
    const list = batches(1);
    list[0] = { ...list[0]!, existing: new Set() };
    const { journal, events } = await run(list, new FakeSettler(new Set()), () => OK);
    expect(journal.map((entry) => entry.state)).toEqual(['sending', 'accepted']);
    expect(kinds(events)).toEqual(['accepted:1']);
  });
});
