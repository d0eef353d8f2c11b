import { describe, expect, it } from 'vitest';
import { makeBatch, splitBatch, type Batch } from '../../../src/push/plan/batch.js';
import type { BatchState, JournalEntry } from '../../../src/push/journal/journal-format.js';
import { decide, JournalIndex, type UncertainPolicy } from '../../../src/push/plan/resume-plan.js';
import { entryOf } from '../../../src/push/journal/journal-format.js';

/** A record as the reader gives it: its bytes counted from its JSON (makeBatch sizes the body by them). */
const item = (record: number) => {
  const json = JSON.stringify({ r: record });
  return { record, json, bytes: Buffer.byteLength(json) };
};

const batch = (number: number, first: number, count: number): Batch =>
  makeBatch(
    number,
    '',
    Array.from({ length: count }, (_, i) => item(first + i)),
  );

const entry = (b: Batch, state: BatchState): JournalEntry => entryOf(b, state);

describe('decide (resume)', () => {
  const b = batch(2, 11, 10);

  const POLICIES: Record<string, UncertainPolicy> = {
    leave: {},
    resend: { resend: 'all' },
    accept: { accept: 'all' },
    'resend 2': { resend: [{ first: 2, last: 2 }] },
    'accept 1-3': { accept: [{ first: 1, last: 3 }] },
    'resend 3-9, accept 1': { resend: [{ first: 3, last: 9 }], accept: [{ first: 1, last: 1 }] },
  };

  it.each<[BatchState | 'none', string, string]>([
    ['none', 'leave', 'send'],
    ['accepted', 'leave', 'accepted'],
    ['accepted', 'resend', 'accepted'],
    ['rejected', 'leave', 'rejected'],
    ['unsent', 'leave', 'send'],
    ['unsent', 'accept', 'send'],
    ['uncertain', 'leave', 'uncertain'],
    ['uncertain', 'resend', 'send'],
    ['uncertain', 'accept', 'confirmed'],
    ['sending', 'leave', 'uncertain'],
    ['sending', 'resend', 'send'],
    ['sending', 'accept', 'confirmed'],
    ['uncertain', 'resend 2', 'send'],
    ['uncertain', 'accept 1-3', 'confirmed'],
    ['uncertain', 'resend 3-9, accept 1', 'uncertain'],
    ['sending', 'resend 3-9, accept 1', 'uncertain'],
    ['unsent', 'resend 3-9, accept 1', 'send'],
  ])('journal state %s, uncertain batches %s → %s', (state, policy, kind) => {
    const index = new JournalIndex(state === 'none' ? [] : [entry(b, 'sending'), entry(b, state)]);
    expect(decide(b, index, POLICIES[policy]!).map((d) => d.kind)).toEqual([kind]);
  });

  it('uses the latest entry of a batch', () => {
    const index = new JournalIndex([entry(b, 'sending'), entry(b, 'uncertain'), entry(b, 'sending'), entry(b, 'accepted')]);
    expect(decide(b, index, {})[0]!.kind).toBe('accepted');
  });

  it('follows a 413 split into its parts', () => {
    const [left, right] = splitBatch(b);
    const [ll, lr] = splitBatch(left);
    const index = new JournalIndex([
      entry(b, 'split'),
      entry(left, 'split'),
      entry(ll, 'accepted'),
      entry(lr, 'rejected'),
      entry(right, 'sending'),
    ]);
    expect(decide(b, index, {}).map((d) => [d.kind, 'batch' in d ? d.batch.part : undefined])).toEqual([
      ['accepted', '1.1'],
      ['rejected', '1.2'],
      ['uncertain', '2'],
    ]);
  });

  it('reports a batch whose records differ from the journal', () => {
    const other = makeBatch(2, '', [...b.items.slice(0, 9), { record: 20, json: '{"r":"changed"}', bytes: 15 }]);
    const index = new JournalIndex([entry(b, 'accepted')]);
    expect(decide(other, index, {})[0]).toMatchObject({ kind: 'mismatch', problem: expect.stringContaining('differ') });
    expect(decide(batch(2, 12, 10), index, {})[0]).toMatchObject({ kind: 'mismatch', problem: expect.stringContaining('11–20') });
  });

  it('sends everything without a journal', () => {
    expect(decide(b, undefined, {})).toEqual([{ kind: 'send', batch: b }]);
  });
});
