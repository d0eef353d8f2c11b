import { describe, expect, it } from 'vitest';
import { KeyHandOff, type KeyHandOffOptions } from '../../../src/push/deliver/key-hand-off.js';
import type { SendEvent } from '../../../src/push/deliver/send-event.js';
import { batchId } from '../../../src/push/plan/batch.js';
import { batches } from '../helpers/batches.js';

/** A hand-off to a reconciler that finds the keys of `inTable` (record numbers); what it was told, in order. */
function setup(inTable: number[] = []) {
  const told: string[] = [];
  const events: SendEvent[] = [];
  const reconciler: KeyHandOffOptions['reconciler'] = {
    found: async (list) => list.map(({ batch }) => new Set(batch.items.map((item) => item.record).filter((r) => inTable.includes(r)))),
    noteAccepted: (batch, sent) => void told.push(`accepted ${batchId(batch)} ${sent.start}–${sent.end}`),
    checkDue: false,
    checkKeysShow: async () => void told.push('check'),
    rowsVisible: async (lastRequestAt) => void told.push(`rows visible after ${lastRequestAt}`),
  };
  const handOff = new KeyHandOff({ reconciler, timeoutMs: 1000, journal: async () => undefined, onOutcome: (e) => void events.push(e) });
  return { handOff, told, events };
}

describe('KeyHandOff', () => {
  it('tells the reconciler of each batch taken in, and at the end waits for their rows', async () => {
    const { handOff, told } = setup();
    handOff.accepted(batches(1)[0]!, { start: 10, end: 20 });
    await handOff.finish(25);
    expect(told).toEqual(['accepted 1 10–20', 'rows visible after 25']);
  });

  it('waits for no rows at the end of a run that had nothing taken in', async () => {
    const { handOff, told } = setup();
    await handOff.finish(25);
    expect(told).toEqual([]);
  });

  it('holds uncertain batches until settled; the records not found come back to be sent again', async () => {
    const { handOff, events } = setup([2]);
    const [first, second] = batches(2);
    handOff.uncertain(first!, { start: 1, end: 2 });
    handOff.earlier({ ...second!, unsettled: { at: Date.now(), cutOff: false } });
    expect(handOff.waiting).toBe(true);
    await handOff.settle(3);
    expect(handOff.waiting).toBe(false);
    expect(events.map((e) => `${e.kind}:${batchId(e.batch)}`)).toEqual(['settled:1']);
    expect([handOff.next(), handOff.next(), handOff.next()].map((b) => b && b.items.map((item) => item.record))).toEqual([
      [1, 3],
      [4, 5, 6],
      undefined,
    ]);
  });

  it('leaves what a stopped run did not settle uncertain, and what it did not send again pending', async () => {
    const { handOff, events } = setup();
    const [first, second] = batches(2);
    handOff.uncertain(first!, { start: 1, end: 2 });
    await handOff.settle(3);
    handOff.uncertain(second!, { start: 4, end: 5 });
    await handOff.leftOver();
    expect(events.map((e) => `${e.kind}:${batchId(e.batch)}`)).toEqual(['uncertain:2', 'pending:1.k']);
  });
});
