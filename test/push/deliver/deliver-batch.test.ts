import { describe, expect, it } from 'vitest';
import { classifyPost, type SendEvent } from '../../../src/push/deliver/classify.js';
import {
  BatchDelivery,
  BatchPoster,
  postLogLine,
  RunStops,
  type BatchDeliveryOptions,
  type Posted,
} from '../../../src/push/deliver/deliver-batch.js';
import type { WireResult } from '../../../src/push/deliver/webhook-client.js';
import type { BatchState } from '../../../src/push/journal/journal-format.js';
import type { SentRequest } from '../../../src/push/key/intake-window.js';
import { batchId, splitBatch, type Batch } from '../../../src/push/plan/batch.js';
import { batches } from '../helpers/batches.js';
import { UNIT_RATE_SCALE } from '../../helpers/rate-scale.js';

const response = (status: number): WireResult => ({ kind: 'response', status, headers: {}, text: '', ms: 1 });

/** BatchDelivery with a poster that answers each POST with the next of `answers`; what it did, in order. */
function setup(answers: WireResult[], options: Partial<BatchDeliveryOptions> = {}) {
  const posts: string[] = [];
  const journal: string[] = [];
  const events: SendEvent[] = [];
  const stops = new RunStops();
  const delivery = new BatchDelivery({
    poster: {
      post: async (batch) => {
        posts.push(batchId(batch));
        const wire = answers[Math.min(posts.length - 1, answers.length - 1)]!;
        return { wire, outcome: classifyPost(wire), sent: { start: posts.length, end: posts.length + 0.5 }, postedFrom: 0 };
      },
      attempted: async () => undefined,
    },
    limiter: { acquireSlot: async () => ({ waitedMs: 0, done: () => undefined }), pause: () => undefined },
    retry: { maxRetries: 2, rateScale: UNIT_RATE_SCALE, random: () => 0 },
    stops,
    journal: async (batch, state) => void journal.push(`${batchId(batch)} ${state}`),
    onOutcome: (event) => void events.push(event),
    ...options,
  });
  return { delivery, posts, journal, events, stops };
}

const kinds = (events: SendEvent[]): string[] => events.map((event) => `${event.kind}:${batchId(event.batch)}`);

describe('BatchDelivery', () => {
  it('counts an outcome the journal could not record (a full disk), then fails', async () => {
    const { delivery, events } = setup([response(200)], {
      journal: (_batch, state) => (state === 'accepted' ? Promise.reject(new Error('disk full')) : Promise.resolve()),
    });
    await expect(delivery.begin(batches(1)[0]!)).rejects.toThrow('disk full');
    expect(kinds(events)).toEqual(['accepted:1']);
  });

  it('posts nothing once the run has stopped: the batch is unsent', async () => {
    const { delivery, posts, events, stops } = setup([response(200)]);
    stops.stop({ kind: 'interrupted' });
    await delivery.begin(batches(1)[0]!);
    expect(posts).toEqual([]);
    expect(kinds(events)).toEqual(['unsent:1']);
  });

  it('gives up after --max-retries: the run stops and the batch is unsent', async () => {
    const { delivery, posts, events, stops } = setup([response(429)]);
    await delivery.begin(batches(1)[0]!);
    expect(posts).toEqual(['1', '1', '1']);
    expect(stops.reasons).toEqual([{ kind: 'gave-up', detail: 'batch 1: HTTP 429 after 3 attempts' }]);
    expect(kinds(events)).toEqual(['unsent:1']);
  });

  it('without --key, an uncertain answer stops the run and counts the batch uncertain', async () => {
    const { delivery, events, stops, journal } = setup([response(500)]);
    await delivery.begin(batches(1)[0]!);
    expect(stops.reasons).toMatchObject([{ kind: 'uncertain', detail: 'HTTP 500' }]);
    expect(kinds(events)).toEqual(['uncertain:1']);
    expect(journal).toEqual(['1 uncertain']);
  });

  it('with --key, hands an uncertain batch over instead of stopping, and notes each batch taken in with its request', async () => {
    const handed: Array<[string, string, SentRequest]> = [];
    const byKey = {
      accepted: (batch: Batch, sent: SentRequest) => void handed.push(['accepted', batchId(batch), sent]),
      uncertain: (batch: Batch, sent: SentRequest) => void handed.push(['uncertain', batchId(batch), sent]),
      heldBack: (batch: Batch) => void handed.push(['held back', batchId(batch), { start: 0, end: 0 }]),
    };
    const { delivery, events, stops, journal } = setup([response(200), response(503)], { byKey });
    for (const batch of batches(2)) await delivery.begin(batch);
    expect(stops.reasons).toEqual([]);
    expect(kinds(events)).toEqual(['accepted:1']);
    expect(journal).toEqual(['1 accepted', '2 uncertain']);
    expect(handed).toEqual([
      ['accepted', '1', { start: 1, end: 1.5 }],
      ['uncertain', '2', { start: 2, end: 2.5 }],
    ]);
  });
});

const SECRET = 'wh_secret_0123456789';
const answer = (status: number, text = ''): WireResult => ({ kind: 'response', status, headers: {}, text, ms: 2 });

/** A poster whose webhook answers with `answerWith`; `log` holds journal lines, requests and log lines in order. */
function poster(answerWith: (body: Buffer) => Promise<WireResult>, journalFails = false) {
  const log: string[] = [];
  const journaled: Array<{ state: BatchState; status?: number; reason?: string }> = [];
  const subject: BatchPoster = new BatchPoster({
    post: async (body) => {
      log.push(`post (${subject.inFlight} in flight)`);
      return answerWith(body);
    },
    journal: async (batch: Batch, state, extra = {}) => {
      if (journalFails) throw new Error('disk full');
      log.push(`journal ${batchId(batch)} ${state}`);
      journaled.push({ state, ...extra });
    },
    displayUrl: 'https://hook/…',
    redact: (text) => text.replaceAll(SECRET, '***'),
    log: (line) => log.push(line),
  });
  return { subject, log, journaled };
}

describe('BatchPoster', () => {
  it('journals the batch as sending before its request leaves, and counts it in flight until it ends', async () => {
    const { subject, log } = poster(async () => answer(200, '{"success":true}'));
    const before = Date.now();
    const posted = await subject.post(batches(1)[0]!);
    expect(log).toEqual(['journal 1 sending', 'post (1 in flight)']);
    expect(subject.inFlight).toBe(0);
    expect(posted.outcome).toMatchObject({ kind: 'accepted', status: 200, success: true });
    expect(posted.sent.start).toBeGreaterThanOrEqual(before);
    expect(posted.sent.end).toBe(subject.lastRequestAt);
    expect(posted.sent.end).toBeGreaterThanOrEqual(posted.sent.start);
  });

  it('sends nothing when the journal cannot say it is sending', async () => {
    const { subject, log } = poster(async () => answer(200), true);
    await expect(subject.post(batches(1)[0]!)).rejects.toThrow('disk full');
    expect(log).toEqual([]);
    expect(subject.lastRequestAt).toBe(0);
  });

  it('notes when a request that failed ended, and no longer counts it', async () => {
    const { subject } = poster(() => Promise.reject(new Error('boom')));
    await expect(subject.post(batches(1)[0]!)).rejects.toThrow('boom');
    expect(subject.inFlight).toBe(0);
    expect(subject.lastRequestAt).toBeGreaterThan(0);
  });

  it('keeps the webhook URL out of the answer it passes on', async () => {
    const { subject } = poster(async () => answer(400, `{"message":"no webhook ${SECRET}"}`));
    const posted = await subject.post(batches(1)[0]!);
    expect(posted.outcome).toMatchObject({ kind: 'rejected', detail: 'HTTP 400: no webhook ***' });
  });

  it('logs each attempt, and journals one that took nothing in as unsent', async () => {
    const { subject, log, journaled } = poster(async () => answer(429));
    const batch = batches(1)[0]!;
    const posted: Posted = await subject.post(batch);
    await subject.attempted(batch, {
      result: posted,
      number: 1,
      limiterWaitMs: 0,
      decision: { retry: true, reason: 'rate-limited', waitMs: 10 },
    });
    expect(log.slice(2)).toEqual([
      'POST https://hook/… 429 2ms: batch 1, records 1–3 (3 objects, 25 bytes) → retry; retry in 10ms',
      'journal 1 unsent',
    ]);
    expect(journaled.at(-1)).toEqual({ state: 'unsent', status: 429, reason: 'HTTP 429' });
  });

  it('journals nothing after an attempt with a final answer', async () => {
    const { subject, log } = poster(async () => answer(202));
    const batch = batches(1)[0]!;
    await subject.attempted(batch, { result: await subject.post(batch), number: 1, limiterWaitMs: 0 });
    expect(log.filter((line) => line.startsWith('journal'))).toEqual(['journal 1 sending']);
  });
});

const [logBatch] = batches(7, 3).slice(6); // records 19–21, 3 objects of 8 bytes, a body of 28
const logged = (status: number, text = ''): WireResult => ({ kind: 'response', status, headers: {}, text, ms: 12.4 });

describe('postLogLine', () => {
  it.each<[string, WireResult, Parameters<typeof postLogLine>[1]['decision'], string]>([
    [
      'an answer taken in',
      logged(200, '{"success":true}'),
      undefined,
      'POST hook 200 12ms: batch 7, records 19–21 (3 objects, 28 bytes) → accepted',
    ],
    [
      'a 429 to be tried again',
      logged(429),
      { retry: true, reason: 'rate-limited', waitMs: 10.6 },
      'POST hook 429 12ms: batch 7, records 19–21 (3 objects, 28 bytes) → retry; retry in 11ms',
    ],
    [
      'a 429 given up',
      logged(429),
      { retry: false, why: 'exhausted', reason: 'rate-limited' },
      'POST hook 429 12ms: batch 7, records 19–21 (3 objects, 28 bytes) → retry',
    ],
    [
      'no answer: the failure named',
      { kind: 'failure', code: 'ECONNRESET', message: 'socket hang up', ms: 3 },
      undefined,
      'POST hook connection reset (ECONNRESET) 3ms: batch 7, records 19–21 (3 objects, 28 bytes) → uncertain',
    ],
  ])('%s', (_name, wire, decision, line) => {
    expect(postLogLine('hook', { batch: logBatch!, wire, outcome: classifyPost(wire), decision })).toBe(line);
  });

  it('names a part of a batch that a 413 split', () => {
    const [half] = splitBatch(logBatch!);
    expect(postLogLine('hook', { batch: half!, wire: logged(202), outcome: classifyPost(logged(202)) })).toContain(
      'batch 7.1, records 19–20 (2 objects, 19 bytes) → accepted',
    );
  });
});

describe('RunStops', () => {
  it('keeps every reason in order; the first one aborts the signal', () => {
    const stops = new RunStops();
    expect(stops.halted).toBe(false);
    stops.stop({ kind: 'uncertain', detail: 'HTTP 500' });
    stops.stop({ kind: 'interrupted' });
    expect(stops.halted).toBe(true);
    expect(stops.signal.reason).toEqual({ kind: 'uncertain', detail: 'HTTP 500' });
    expect(stops.reasons).toEqual([{ kind: 'uncertain', detail: 'HTTP 500' }, { kind: 'interrupted' }]);
  });

  it('tells its own stop from another error that ended a wait', () => {
    const stops = new RunStops();
    const other = new Error('disk full');
    expect(stops.cutShort(other)).toBe(false);
    stops.stop({ kind: 'interrupted' });
    expect(stops.cutShort(stops.signal.reason)).toBe(true);
    expect(stops.cutShort(other)).toBe(false);
  });
});
