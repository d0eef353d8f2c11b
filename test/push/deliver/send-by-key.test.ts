import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { TdsError } from '../../../src/core/errors.js';
import { RateLimiter } from '../../../src/http/rate-limiter.js';
import { BatchSender, type SendEvent, type SendOptions, type StopReason } from '../../../src/push/deliver/send-batches.js';
import type { WireResult } from '../../../src/push/deliver/webhook-client.js';
import type { JournalEntry } from '../../../src/push/journal/journal-entry.js';
import type { SentRequest } from '../../../src/push/key/intake-window.js';
import type { SentBatch } from '../../../src/push/key/reconcile.js';
import { batchId, type Batch } from '../../../src/push/plan/batch.js';
import { batches as plainBatches } from '../helpers/batches.js';

const batches = (count: number, size = 3): Batch[] => plainBatches(count, size, true);

const SCALE = 1000;

const response = (status: number, text = ''): WireResult => ({ kind: 'response', status, headers: {}, text, ms: 1 });
const OK = response(200, '{"success":true,"message":"3 records are being processed"}');
const BOOM = response(500, '{"statusCode":500,"error":"Internal","message":"boom"}');

/** A request as the fake webhook saw it: its records, and its place among all requests (1-based). */
interface Seen {
  n: number;
  records: number[];
}

/** The reconciler's side of the run: what it was asked, and what the table holds (record numbers). */
class FakeSettler {
  readonly calls: Array<{ batches: string[]; sent: SentRequest[]; lastRequestAt: number; inFlight: number; at: number }> = [];
  readonly accepted: Array<[string, boolean]> = [];
  readonly acceptedSent: SentRequest[] = [];
  readonly checks: Array<number | undefined> = [];
  checkDue = false;
  sender?: BatchSender;
  /** called inside found(), before it answers */
  onFound?: () => void;
  fail?: Error;

  constructor(public inTable: Set<number>) {}

  async found(list: readonly SentBatch[], lastRequestAt: number): Promise<Array<ReadonlySet<number>>> {
    this.calls.push({
      batches: list.map(({ batch }) => batchId(batch)),
      sent: list.map(({ sent }) => sent),
      lastRequestAt,
      inFlight: this.sender?.inFlight ?? -1,
      at: Date.now(),
    });
    this.onFound?.();
    if (this.fail) throw this.fail;
    return list.map(({ batch }) => new Set(batch.items.filter((item) => this.inTable.has(item.record)).map((item) => item.record)));
  }

  noteAccepted(batch: Batch, sent: SentRequest, thisRun = true): void {
    this.accepted.push([batchId(batch), thisRun]);
    this.acceptedSent.push(sent);
  }

  async checkKeysShow(): Promise<void> {
    this.checks.push(undefined);
    this.checkDue = false;
  }

  async rowsVisible(lastRequestAt: number): Promise<void> {
    this.checks.push(lastRequestAt);
  }
}

interface Run {
  events: SendEvent[];
  journal: JournalEntry[];
  stops: StopReason[];
  seen: Seen[];
  log: string[];
}

async function run(
  list: Batch[],
  reconciler: FakeSettler,
  answer: (seen: Seen) => WireResult | Promise<WireResult>,
  options: Partial<SendOptions> = {},
): Promise<Run> {
  const journal: JournalEntry[] = [];
  const events: SendEvent[] = [];
  const seen: Seen[] = [];
  const log: string[] = [];
  const sender = new BatchSender({
    concurrency: 1,
    maxRetries: 3,
    rateScale: SCALE,
    limiter: new RateLimiter({ limit: 100, windowMs: 1000 / SCALE }),
    post: async (body) => {
      const request = { n: seen.length + 1, records: (JSON.parse(body.toString('utf8')) as Array<{ r: number }>).map((o) => o.r) };
      seen.push(request);
      log.push(`start ${request.records.join(',')}`);
      const result = await answer(request);
      log.push(`end ${request.records.join(',')}`);
      return result;
    },
    journal: {
      append: async (entry) => {
        journal.push(entry);
        log.push(`journal ${batchId({ number: entry.batch, part: entry.part ?? '' })} ${entry.state}`);
      },
    },
    interrupt: new AbortController().signal,
    shown: 'https://hook/…',
    redact: (text) => text,
    random: () => 0.5,
    onOutcome: (event) => void events.push(event),
    reconciler,
    timeoutMs: 60_000,
    ...options,
  });
  reconciler.sender = sender;
  const onFound = reconciler.onFound;
  reconciler.onFound = () => {
    log.push('found');
    onFound?.();
  };
  const stops = await sender.run(
    (async function* () {
      yield* list;
    })(),
  );
  return { events, journal, stops, seen, log };
}

const kinds = (events: SendEvent[]): string[] =>
  events.map((event) => `${event.kind}:${batchId(event.batch)}${'records' in event ? `(${event.records})` : ''}`);
const statesOf = (journal: JournalEntry[], id: string): string[] =>
  journal.filter((entry) => batchId({ number: entry.batch, part: entry.part ?? '' }) === id).map((entry) => entry.state);

describe('BatchSender with --key: uncertain batches settled by key', () => {
  it('does not stop at an uncertain outcome: settles the batch and sends the records not found as part k', async () => {
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
    expect(kinds(events)).toEqual(['accepted:1', 'settled:2(1)', 'accepted:2.k', 'accepted:3', 'accepted:4']);
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
    // the uncertain batch is not reported as uncertain: it was settled
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
      { concurrency: 3 },
    );
    expect(stops).toEqual([]);
    const found = log.indexOf('found');
    const failed = log.indexOf('journal 2 uncertain');
    expect(failed).toBeGreaterThan(0);
    expect(found).toBeGreaterThan(failed);
    // between the uncertain outcome and the settling, no request starts
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
    expect(kinds(events)).toEqual(['settled:1(3)', 'accepted:2']);
  });

  it('settles part k again when its request is uncertain too (part k.k)', async () => {
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

  it('settles uncertain batches together when several come back at once', async () => {
    const reconciler = new FakeSettler(new Set([1, 5]));
    const { journal, events } = await run(
      batches(3),
      reconciler,
      async (request) => {
        await sleep(5);
        return request.n <= 2 ? BOOM : OK;
      },
      { concurrency: 2 },
    );
    expect(reconciler.calls.map((call) => call.batches)).toEqual([['1', '2']]);
    expect(journal.filter((entry) => entry.state === 'narrowed').map((entry) => [entry.batch, entry.keep])).toEqual([
      [1, [2, 3]],
      [2, [4, 6]],
    ]);
    expect(kinds(events).sort()).toEqual(['accepted:1.k', 'accepted:2.k', 'accepted:3', 'settled:1(1)', 'settled:2(1)']);
  });

  it('fails the run when settling fails, and sends nothing more', async () => {
    const reconciler = new FakeSettler(new Set());
    reconciler.fail = new TdsError('PUSH_INCOMPLETE', 'cannot settle uncertain records by key');
    const { stops, seen } = await run(batches(3), reconciler, (request) => (request.n === 1 ? BOOM : OK));
    expect(stops).toEqual([{ kind: 'failed', error: reconciler.fail }]);
    expect(seen).toHaveLength(1);
  });

  // send-batches.ts settleAll() takes the batches out of `unsettled` (splice) before found() answers;
  // when found() throws, leftOver() has nothing to report, so the batch the journal left uncertain
  // is never counted as uncertain (nor as anything else) in the summary.
  it('reports the batches it could not settle as uncertain when settling fails', async () => {
    const reconciler = new FakeSettler(new Set());
    reconciler.fail = new TdsError('PUSH_INCOMPLETE', 'cannot settle uncertain records by key');
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

describe('BatchSender with batches an earlier run left uncertain', () => {
  it('settles them by key without posting them, then sends the records not found', async () => {
    const at = Date.now() - 5000;
    const list = batches(3);
    list[1] = { ...list[1]!, unsettled: { at, cutOff: false } };
    const reconciler = new FakeSettler(new Set([4]));
    const { seen, journal, events } = await run(list, reconciler, () => OK);
    expect(seen.map((request) => request.records)).toEqual([
      [1, 2, 3],
      [5, 6],
      [7, 8, 9],
    ]);
    expect(statesOf(journal, '2')).toEqual(['narrowed']);
    expect(journal.find((entry) => entry.batch === 2)).toMatchObject({ keep: [5, 6], why: 'settled' });
    expect(kinds(events)).toEqual(['accepted:1', 'settled:2(1)', 'accepted:2.k', 'accepted:3']);
    // the webhook may have had batch 1's request until it ended, after batch 2's
    expect(reconciler.calls[0]!.lastRequestAt).toBeGreaterThan(at);
  });

  it('takes the time journaled as when the webhook had the request, or the timeout later when it was cut off', async () => {
    const at = Date.now() - 5000;
    const first = (cutOff: boolean): Batch[] => {
      const list = batches(1);
      list[0] = { ...list[0]!, unsettled: { at, cutOff } };
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

  it('on interrupt, reports the batches not settled yet as uncertain', async () => {
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
    expect(events).toMatchObject([{ kind: 'uncertain', batch: { number: 1 }, reason: 'not settled: the run stopped first' }]);
    expect(journal.map((entry) => entry.state)).toEqual(['sending', 'uncertain']);
    expect(reconciler.checks).toEqual([]);
  });

  it('on interrupt while settling, reports the records to send again as pending', async () => {
    const interrupt = new AbortController();
    const reconciler = new FakeSettler(new Set([2]));
    reconciler.onFound = () => interrupt.abort();
    const { events, stops, seen } = await run(batches(3), reconciler, (request) => (request.n === 1 ? BOOM : OK), {
      interrupt: interrupt.signal,
    });
    expect(stops).toEqual([{ kind: 'interrupted' }]);
    expect(seen).toHaveLength(1);
    expect(kinds(events)).toEqual(['settled:1(1)', 'pending:1.k']);
    expect(events[1]!.batch.items.map((item) => item.record)).toEqual([1, 3]);
  });

  it("on interrupt, reports an earlier run's unsettled batches as uncertain without settling them", async () => {
    const interrupt = new AbortController();
    const list = batches(2);
    list[1] = { ...list[1]!, unsettled: { at: Date.now(), cutOff: false } };
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
