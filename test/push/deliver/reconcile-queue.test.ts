import { describe, expect, it } from 'vitest';
import type { SendEvent } from '../../../src/push/deliver/classify.js';
import { ReconcileQueue, type ReconcileQueueOptions } from '../../../src/push/deliver/reconcile-queue.js';
import { batchId } from '../../../src/push/plan/batch.js';
import { batches } from '../helpers/batches.js';

/** A queue in front of a reconciler that finds the keys of `inTable` (record numbers); what it was told, in order. */
function setup(inTable: number[] = []) {
  const told: string[] = [];
  const events: SendEvent[] = [];
  const reconciler: ReconcileQueueOptions['reconciler'] = {
    found: async (list) => list.map(({ batch }) => new Set(batch.items.map((item) => item.record).filter((r) => inTable.includes(r)))),
    noteAccepted: (batch, sent) => void told.push(`accepted ${batchId(batch)} ${sent.start}–${sent.end}`),
    rowsVisible: async (lastRequestAt) => void told.push(`rows visible after ${lastRequestAt}`),
  };
  const queue = new ReconcileQueue({ reconciler, timeoutMs: 1000, journal: async () => undefined, onOutcome: (e) => void events.push(e) });
  return { queue, told, events };
}

describe('ReconcileQueue', () => {
  it('tells the reconciler of each batch taken in, and at the end waits for their rows', async () => {
    const { queue, told } = setup();
    queue.accepted(batches(1)[0]!, { start: 10, end: 20 });
    await queue.finish(25);
    expect(told).toEqual(['accepted 1 10–20', 'rows visible after 25']);
  });

  it('waits for no rows at the end of a run that had nothing taken in', async () => {
    const { queue, told } = setup();
    await queue.finish(25);
    expect(told).toEqual([]);
  });

  it('holds uncertain batches until reconciled; the records not found come back to be sent again', async () => {
    const { queue, events } = setup([2]);
    const [first, second] = batches(2);
    queue.uncertain(first!, { start: 1, end: 2 });
    queue.earlier({ ...second!, unreconciled: { at: Date.now(), cutOff: false } });
    expect(queue.waiting).toBe(true);
    await queue.reconcile(3);
    expect(queue.waiting).toBe(false);
    expect(events.map((e) => `${e.kind}:${batchId(e.batch)}`)).toEqual(['reconciled:1']);
    expect([queue.next(), queue.next(), queue.next()].map((b) => b && b.items.map((item) => item.record))).toEqual([
      [1, 3],
      [4, 5, 6],
      undefined,
    ]);
  });

  it('leaves what a stopped run did not reconcile uncertain, and what it did not send again unsent', async () => {
    const { queue, events } = setup();
    const [first, second] = batches(2);
    queue.uncertain(first!, { start: 1, end: 2 });
    await queue.reconcile(3);
    queue.uncertain(second!, { start: 4, end: 5 });
    await queue.leftOver();
    expect(events.map((e) => `${e.kind}:${batchId(e.batch)}`)).toEqual(['uncertain:2', 'unsent:1.k']);
  });
});
