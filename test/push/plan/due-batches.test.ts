import { describe, expect, it } from 'vitest';
import { makeBatch, type Batch, type BatchEvent } from '../../../src/push/plan/batch.js';
import { dueBatches } from '../../../src/push/plan/input-batches.js';
import { type BatchState, entryOf } from '../../../src/push/journal/journal-format.js';
import { JournalIndex } from '../../../src/push/plan/resume-plan.js';
import { PushTally } from '../../../src/push/plan/tally.js';

const batch = (number: number, tag = ''): Batch => {
  const json = JSON.stringify({ n: number, tag });
  // bytes as the reader counts them: makeBatch sizes the body by them (a larger count would hash stale bytes)
  return makeBatch(number, '', [{ record: number, json, bytes: Buffer.byteLength(json) }]);
};

async function run(events: BatchEvent[], journal: [Batch, BatchState][], log: string[], byKey = false) {
  const tally = new PushTally();
  const rejected: string[] = [];
  const due = dueBatches(
    (async function* () {
      for (const event of events) {
        log.push(`read ${event.kind === 'batch' ? event.batch.number : event.kind}`);
        yield event;
      }
    })(),
    {
      tally,
      index: journal.length
        ? new JournalIndex(journal.map(([b, state]) => entryOf(b, state, state === 'rejected' ? { reason: 'HTTP 400: bad' } : {})))
        : undefined,
      uncertain: { byKey },
      maxBytes: 1000,
      onRejected: (b, reason) => void rejected.push(`${b.items.map((item) => item.record).join(',')}: ${reason}`),
    },
  );
  for await (const b of due) log.push(`${b.unreconciled ? 'reconcile' : 'send'} ${b.number}`);
  return { tally, rejected };
}

describe('dueBatches', () => {
  it('counts skipped and oversized records and sends the rest in order', async () => {
    const log: string[] = [];
    const { tally, rejected } = await run(
      [
        { kind: 'skipped', record: 9 },
        { kind: 'oversized', item: { record: 8, json: '{}', bytes: 5000 } },
        { kind: 'batch', batch: batch(1) },
        { kind: 'batch', batch: batch(2) },
      ],
      [],
      log,
    );
    expect(log.filter((line) => line.startsWith('send'))).toEqual(['send 1', 'send 2']);
    expect(tally.skipped).toBe(1);
    expect(tally.rejected).toMatchObject({ records: 1, oversized: 1 });
    expect(rejected).toEqual(['8: the object is 5000 bytes; a request body may hold at most 1000 bytes']);
  });

  it('skips accepted batches, relists rejected ones and leaves uncertain ones alone', async () => {
    const log: string[] = [];
    const { tally, rejected } = await run(
      [1, 2, 3, 4].map((n) => ({ kind: 'batch' as const, batch: batch(n) })),
      [
        [batch(1), 'accepted'],
        [batch(2), 'rejected'],
        [batch(3), 'uncertain'],
      ],
      log,
    );
    expect(log.filter((line) => line.startsWith('send'))).toEqual(['send 4']);
    expect(tally.already).toEqual({ batches: 1, records: 1 });
    expect(rejected).toEqual(['2: HTTP 400: bad']);
    expect(tally.uncertain.map((u) => u.batch)).toEqual(['3']);
  });

  it('holds back a batch the journal does not know until every batch it knows has been checked', async () => {
    const log: string[] = [];
    await run(
      [1, 2, 3, 4].map((n) => ({ kind: 'batch' as const, batch: batch(n) })),
      [
        [batch(1), 'accepted'],
        [batch(3), 'accepted'],
      ],
      log,
    );
    expect(log).toEqual(['read 1', 'read 2', 'read 3', 'send 2', 'read 4', 'send 4']);
  });

  it('refuses an input whose batches differ from the journal before sending anything new', async () => {
    const log: string[] = [];
    const events = [batch(1), batch(2), batch(3, 'changed')].map((b) => ({ kind: 'batch' as const, batch: b }));
    await expect(
      run(
        events,
        [
          [batch(1), 'accepted'],
          [batch(3), 'accepted'],
        ],
        log,
      ),
    ).rejects.toThrow(/does not match the journal.*batch 3: its records differ/);
    expect(log.some((line) => line.startsWith('send'))).toBe(false);
  });

  it('refuses an input with fewer batches than the journal knows', async () => {
    const log: string[] = [];
    await expect(
      run(
        [{ kind: 'batch', batch: batch(1) }],
        [
          [batch(1), 'accepted'],
          [batch(2), 'uncertain'],
        ],
        log,
      ),
    ).rejects.toThrow(/the journal records batch 2, the input makes 1 batches/);
  });

  it('with --key, reconciles by key every batch from the first that differs, whatever the input now holds', async () => {
    const log: string[] = [];
    const events = [batch(1), batch(2, 'changed'), batch(3), batch(5)].map((b) => ({ kind: 'batch' as const, batch: b }));
    const journal: [Batch, BatchState][] = [
      [batch(1), 'accepted'],
      [batch(2), 'accepted'],
      [batch(4), 'uncertain'],
      [batch(6), 'accepted'],
    ];
    const { tally } = await run(events, journal, log, true);
    // 3 and 5 are not in the journal, but the input changed before them: their records may have been sent as others
    expect(log.filter((line) => !line.startsWith('read'))).toEqual(['reconcile 2', 'reconcile 3', 'reconcile 5']);
    expect(tally.toSend.batches).toBe(3);
    expect(tally.already.batches).toBe(1);
  });

  it('with --key, an input that only grew sends its new batches as they are', async () => {
    const log: string[] = [];
    const events = [1, 2, 3].map((n) => ({ kind: 'batch' as const, batch: batch(n) }));
    await run(
      events,
      [
        [batch(1), 'accepted'],
        [batch(2), 'accepted'],
      ],
      log,
      true,
    );
    expect(log.filter((line) => !line.startsWith('read'))).toEqual(['send 3']);
  });
});
