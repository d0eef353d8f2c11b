import { describe, expect, it } from 'vitest';
import type { Batch } from '../../../src/push/plan/batch.js';
import { batches, BOOM, FakeSettler, kinds, OK, run, statesOf } from '../helpers/keyed-sender.js';

describe('BatchSender with batches an earlier run left uncertain', () => {
  it('reconciles them by key without posting them, then sends the records not found', async () => {
    const at = Date.now() - 5000;
    const list = batches(3);
    list[1] = { ...list[1]!, unreconciled: { at, cutOff: false } };
    const reconciler = new FakeSettler(new Set([4]));
    const { seen, journal, events } = await run(list, reconciler, () => OK);
    expect(seen.map((request) => request.records)).toEqual([
      [1, 2, 3],
      [5, 6],
      [7, 8, 9],
    ]);
    expect(statesOf(journal, '2')).toEqual(['narrowed']);
    expect(journal.find((entry) => entry.batch === 2)).toMatchObject({ keep: [5, 6], why: 'settled' });
    expect(kinds(events)).toEqual(['accepted:1', 'reconciled:2(1)', 'accepted:2.k', 'accepted:3']);
    // the webhook may have had batch 1's request until it ended, after batch 2's
    expect(reconciler.calls[0]!.lastRequestAt).toBeGreaterThan(at);
  });

  it('takes the time journaled as when the webhook had the request, or the timeout later when it was cut off', async () => {
    const at = Date.now() - 5000;
    const first = (cutOff: boolean): Batch[] => {
      const list = batches(1);
      list[0] = { ...list[0]!, unreconciled: { at, cutOff } };
      return list;
    };
    const plain = new FakeSettler(new Set([1, 2, 3]));
    await run(first(false), plain, () => OK);
    expect(plain.calls[0]!.sent).toEqual([{ start: -Infinity, end: at }]);

    const cut = new FakeSettler(new Set([1, 2, 3]));
    await run(first(true), cut, () => OK, { timeoutMs: 1000 });
    expect(cut.calls[0]!.sent).toEqual([{ start: -Infinity, end: at + 1000 }]);

    // a timeout reaching past now: now (this run began after the earlier one ended)
    const long = new FakeSettler(new Set([1, 2, 3]));
    const before = Date.now();
    const { seen } = await run(first(true), long, () => OK, { timeoutMs: 60_000 });
    expect(long.calls[0]!.sent[0]!.end).toBeGreaterThanOrEqual(before);
    expect(long.calls[0]!.sent[0]!.end).toBeLessThanOrEqual(long.calls[0]!.at);
    expect(seen).toEqual([]);
  });
});

describe('BatchSender with --key: checks and stops', () => {
  it('checks that keys show once due, and at the end with the last request time', async () => {
    const reconciler = new FakeSettler(new Set());
    reconciler.checkDue = true;
    const { stops } = await run(batches(2), reconciler, () => OK);
    expect(stops).toEqual([]);
    expect(reconciler.checks).toHaveLength(2);
    expect(reconciler.checks[0]).toBeUndefined();
    expect(reconciler.checks[1]).toBeGreaterThan(0);
  });

  it('makes no final check when nothing was taken in', async () => {
    const list = batches(1);
    list[0] = { ...list[0]!, existing: new Set([1, 2, 3]) };
    const reconciler = new FakeSettler(new Set());
    await run(list, reconciler, () => OK);
    expect(reconciler.checks).toEqual([]);
  });

  it('on interrupt, reports the batches not reconciled yet as uncertain', async () => {
    const interrupt = new AbortController();
    const reconciler = new FakeSettler(new Set());
    const { events, stops, journal, seen } = await run(
      batches(3),
      reconciler,
      (request) => {
        if (request.n === 1) interrupt.abort();
        return request.n === 1 ? BOOM : OK;
      },
      { interrupt: interrupt.signal },
    );
    expect(stops).toEqual([{ kind: 'interrupted' }]);
    expect(seen).toHaveLength(1);
    expect(reconciler.calls).toEqual([]);
    expect(events).toMatchObject([{ kind: 'uncertain', batch: { number: 1 }, reason: 'not reconciled: the run stopped first' }]);
    expect(journal.map((entry) => entry.state)).toEqual(['sending', 'uncertain']);
    expect(reconciler.checks).toEqual([]);
  });

  it('on interrupt while reconciling, reports the records to send again as unsent', async () => {
    const interrupt = new AbortController();
    const reconciler = new FakeSettler(new Set([2]));
    reconciler.onFound = () => interrupt.abort();
    const { events, stops, seen } = await run(batches(3), reconciler, (request) => (request.n === 1 ? BOOM : OK), {
      interrupt: interrupt.signal,
    });
    expect(stops).toEqual([{ kind: 'interrupted' }]);
    expect(seen).toHaveLength(1);
    expect(kinds(events)).toEqual(['reconciled:1(1)', 'unsent:1.k']);
    expect(events[1]!.batch.items.map((item) => item.record)).toEqual([1, 3]);
  });

  it("on interrupt, reports an earlier run's unreconciled batches as uncertain without reconciling them", async () => {
    const interrupt = new AbortController();
    const list = batches(2);
    list[1] = { ...list[1]!, unreconciled: { at: Date.now(), cutOff: false } };
    const reconciler = new FakeSettler(new Set());
    const { events } = await run(
      list,
      reconciler,
      () => {
        interrupt.abort();
        return OK;
      },
      { interrupt: interrupt.signal },
    );
    expect(reconciler.calls).toEqual([]);
    expect(kinds(events)).toEqual(['accepted:1']);
  });
});
