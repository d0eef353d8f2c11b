import { describe, expect, it } from 'vitest';
import { entryOf, type BatchState, type JournalEntry } from '../../../src/push/journal/journal-format.js';
import { batchId, makeBatch, narrowBatch, splitBatch, type Batch, type BatchEvent } from '../../../src/push/plan/batch.js';
import { dueBatches } from '../../../src/push/plan/input-batches.js';
import { decide, JournalIndex, type Decision, type UncertainPolicy } from '../../../src/push/plan/resume-plan.js';
import { PushTally } from '../../../src/push/plan/tally.js';

/** Batch `number` of records first…first+count-1, keyed `k<record>`. */
const batch = (number: number, first: number, count: number): Batch =>
  makeBatch(
    number,
    '',
    Array.from({ length: count }, (_, i) => {
      const record = first + i;
      const json = JSON.stringify({ r: record });
      return { record, json, bytes: json.length, key: `k${record}` };
    }),
  );

const narrowed = (b: Batch, keep: number[], why?: 'existing' | 'settled'): JournalEntry =>
  entryOf(b, 'narrowed', { keep, ...(why ? { why } : {}) });
const entry = (b: Batch, state: BatchState): JournalEntry => entryOf(b, state);
const part = (b: Batch, keep: number[]): Batch => narrowBatch(b, new Set(keep))!;

/** Decisions in short: `kind id [records]` or `known N why`. */
function show(decisions: Decision[]): string[] {
  return decisions.map((d) =>
    d.kind === 'known'
      ? `known ${d.records} ${d.why}`
      : `${d.kind} ${batchId(d.batch)} [${d.batch.items.map((item) => item.record).join(',')}]`,
  );
}

const run = (b: Batch, entries: JournalEntry[], policy: UncertainPolicy = {}): string[] =>
  show(decide(b, new JournalIndex(entries), policy));

describe('decide with narrowed batches', () => {
  const b = batch(2, 11, 5); // records 11–15

  it('counts the records found and sends the ones kept as part k', () => {
    expect(run(b, [entry(b, 'sending'), entry(b, 'uncertain'), narrowed(b, [12, 14], 'settled')])).toEqual([
      'known 3 settled',
      'send 2.k [12,14]',
    ]);
    expect(run(b, [narrowed(b, [15], 'existing')])).toEqual(['known 4 existing', 'send 2.k [15]']);
  });

  it('counts a batch all found as known, with nothing to send', () => {
    expect(run(b, [narrowed(b, [], 'existing')])).toEqual(['known 5 existing']);
    expect(run(b, [narrowed(b, [], 'settled')])).toEqual(['known 5 settled']);
  });

  it('takes an entry without `why` as settled, and one keeping every record as nothing known', () => {
    expect(run(b, [narrowed(b, [11])])).toEqual(['known 4 settled', 'send 2.k [11]']);
    expect(run(b, [narrowed(b, [11, 12, 13, 14, 15], 'settled')])).toEqual(['known 0 settled', 'send 2.k [11,12,13,14,15]']);
  });

  it('follows part k to its own journal entries', () => {
    const k = part(b, [12, 13]);
    const entries = [narrowed(b, [12, 13], 'settled')];
    expect(run(b, [...entries, entry(k, 'sending'), entry(k, 'accepted')])).toEqual(['known 3 settled', 'accepted 2.k [12,13]']);
    expect(run(b, [...entries, entry(k, 'rejected')])).toEqual(['known 3 settled', 'rejected 2.k [12,13]']);
    expect(run(b, [...entries, entry(k, 'sending'), entry(k, 'uncertain')])).toEqual(['known 3 settled', 'uncertain 2.k [12,13]']);
    expect(run(b, [...entries, entry(k, 'sending')], { byKey: true })).toEqual(['known 3 settled', 'reconcile 2.k [12,13]']);
  });

  it('follows nested parts: k of k, k of a 413 half, halves of k', () => {
    const k = part(b, [11, 12, 13]);
    const kk = part(k, [13]);
    expect(
      run(b, [narrowed(b, [11, 12, 13], 'existing'), entry(k, 'uncertain'), narrowed(k, [13], 'settled'), entry(kk, 'accepted')]),
    ).toEqual(['known 2 existing', 'known 2 settled', 'accepted 2.k.k [13]']);

    const [left, right] = splitBatch(b);
    const leftK = part(left!, [13]);
    expect(leftK.part).toBe('1.k');
    expect(
      run(b, [
        entry(b, 'split'),
        entry(left!, 'uncertain'),
        narrowed(left!, [13], 'settled'),
        entry(leftK, 'accepted'),
        entry(right!, 'accepted'),
      ]),
    ).toEqual(['known 2 settled', 'accepted 2.1.k [13]', 'accepted 2.2 [14,15]']);

    const [kLeft] = splitBatch(k);
    expect(kLeft.part).toBe('k.1');
    expect(run(b, [narrowed(b, [11, 12, 13], 'existing'), entry(k, 'split'), entry(kLeft, 'accepted')])).toEqual([
      'known 2 existing',
      'accepted 2.k.1 [11,12]',
      'send 2.k.2 [13]',
    ]);
  });

  it('refuses part k when its records differ from the journal', () => {
    const k = part(b, [12, 13]);
    const other = part(b, [12, 14]);
    const decisions = decide(b, new JournalIndex([narrowed(b, [12, 13], 'settled'), { ...entry(other, 'accepted'), part: 'k' }]), {});
    expect(decisions[0]).toEqual({ kind: 'known', records: 3, why: 'settled' });
    expect(decisions[1]).toMatchObject({ kind: 'mismatch', batch: { part: 'k' } });
    expect(k.part).toBe('k');
  });
});

describe('decide with --key (byKey)', () => {
  const b = batch(2, 11, 5);

  it.each<[BatchState, UncertainPolicy, string]>([
    ['uncertain', { byKey: true }, 'reconcile'],
    ['sending', { byKey: true }, 'reconcile'],
    ['uncertain', { byKey: true, resend: 'all' }, 'send'],
    ['uncertain', { byKey: true, resend: [{ first: 2, last: 2 }] }, 'send'],
    ['sending', { byKey: true, accept: [{ first: 1, last: 5 }] }, 'confirmed'],
    ['uncertain', { byKey: true, accept: 'all' }, 'confirmed'],
    ['uncertain', { byKey: true, resend: [{ first: 3, last: 9 }] }, 'reconcile'],
    ['uncertain', { byKey: true, accept: [{ first: 1, last: 1 }] }, 'reconcile'],
    ['uncertain', { byKey: false }, 'uncertain'],
    ['accepted', { byKey: true }, 'accepted'],
    ['unsent', { byKey: true }, 'send'],
    ['rejected', { byKey: true }, 'rejected'],
  ])('journal state %s with %j → %s', (state, policy, kind) => {
    expect(decide(b, new JournalIndex([entry(b, 'sending'), entry(b, state)]), policy).map((d) => d.kind)).toEqual([kind]);
  });

  it('gives the journal entry with a reconcile decision', () => {
    const last = entry(b, 'uncertain');
    expect(decide(b, new JournalIndex([entry(b, 'sending'), last]), { byKey: true })).toEqual([
      { kind: 'reconcile', batch: b, entry: last },
    ]);
  });
});

describe('dueBatches with --key', () => {
  async function due(batches: Batch[], entries: JournalEntry[], policy: UncertainPolicy) {
    const tally = new PushTally();
    const events = (async function* (): AsyncGenerator<BatchEvent> {
      for (const b of batches) yield { kind: 'batch', batch: b };
    })();
    const out: Batch[] = [];
    for await (const b of dueBatches(events, { tally, index: new JournalIndex(entries), uncertain: policy, maxBytes: 1_000_000 })) {
      out.push(b);
    }
    return { out, tally };
  }

  it('hands uncertain batches on to be settled, with when they were journaled and whether they were cut off', async () => {
    const [b1, b2, b3] = [batch(1, 1, 3), batch(2, 4, 3), batch(3, 7, 3)];
    const e1 = { ...entry(b1, 'uncertain'), at: '2026-03-01T10:00:00.000Z' };
    const e2 = { ...entry(b2, 'sending'), at: '2026-03-01T10:00:05.000Z' };
    const { out, tally } = await due([b1, b2, b3], [entry(b1, 'sending'), e1, e2, entry(b3, 'accepted')], { byKey: true });
    expect(out.map((b) => [batchId(b), b.unreconciled])).toEqual([
      ['1', { at: Date.parse('2026-03-01T10:00:00.000Z'), cutOff: false }],
      ['2', { at: Date.parse('2026-03-01T10:00:05.000Z'), cutOff: true }],
    ]);
    expect(tally.toSend).toEqual({ batches: 2, records: 6, bytes: b1.bytes + b2.bytes });
    expect(tally.uncertain).toEqual([]);
    expect(tally.already).toEqual({ batches: 1, records: 3 });
  });

  it('counts records an earlier run found (existing; settled: sent by an earlier run) and sends the rest', async () => {
    const [b1, b2] = [batch(1, 1, 4), batch(2, 5, 4)];
    const k1 = part(b1, [4]);
    const { out, tally } = await due(
      [b1, b2],
      [narrowed(b1, [4], 'existing'), entry(k1, 'accepted'), entry(b2, 'uncertain'), narrowed(b2, [6, 7], 'settled')],
      { byKey: true },
    );
    expect(out.map((b) => [batchId(b), b.items.map((item) => item.record), b.unreconciled])).toEqual([['2.k', [6, 7], undefined]]);
    expect(tally.existing).toBe(3);
    // this run reconciled nothing: an earlier run's request put them there
    expect(tally.reconciled).toBe(0);
    expect(tally.earlierRuns).toBe(2);
    expect(tally.already).toEqual({ batches: 1, records: 1 });
    expect(tally.planned.records).toBe(8);
  });

  it('leaves uncertain batches as they were without --key', async () => {
    const b1 = batch(1, 1, 3);
    const { out, tally } = await due([b1], [entry(b1, 'uncertain')], {});
    expect(out).toEqual([]);
    expect(tally.uncertain).toMatchObject([{ batch: '1', count: 3 }]);
  });
});

describe('PushTally.combine', () => {
  it('adds the existing and settled records of the scan and the sending', () => {
    const scan = new PushTally();
    scan.existing = 3;
    scan.reconciled = 2;
    const send = new PushTally();
    send.existing = 10;
    send.reconciled = 1;
    const all = PushTally.combine(scan, send);
    expect([all.existing, all.reconciled]).toEqual([13, 3]);
  });

  it('keeps the duplicates the scan counted', () => {
    const scan = new PushTally();
    scan.duplicate(5, 1);
    scan.duplicate(9, 2);
    const all = PushTally.combine(scan, new PushTally());
    expect(all.duplicates).toEqual({
      records: 2,
      sample: [
        [5, 1],
        [9, 2],
      ],
    });
  });
});
