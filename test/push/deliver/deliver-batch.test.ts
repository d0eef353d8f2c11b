import { describe, expect, it } from 'vitest';
import { classifyPost } from '../../../src/push/deliver/classify.js';
import { BatchDelivery, type BatchDeliveryOptions } from '../../../src/push/deliver/deliver-batch.js';
import type { SendEvent } from '../../../src/push/deliver/send-event.js';
import { RunStops } from '../../../src/push/deliver/stop-reason.js';
import type { WireResult } from '../../../src/push/deliver/webhook-client.js';
import type { SentRequest } from '../../../src/push/key/intake-window.js';
import { batchId, type Batch } from '../../../src/push/plan/batch.js';
import { batches } from '../helpers/batches.js';

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
        return { wire, outcome: classifyPost(wire), sent: { start: posts.length, end: posts.length + 0.5 } };
      },
      attempted: async () => undefined,
    },
    limiter: { acquireSlot: async () => ({ waitedMs: 0, done: () => undefined }), pause: () => undefined },
    retry: { maxRetries: 2, rateScale: 1000, random: () => 0 },
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

  it('posts nothing once the run has stopped: the batch is pending', async () => {
    const { delivery, posts, events, stops } = setup([response(200)]);
    stops.stop({ kind: 'interrupted' });
    await delivery.begin(batches(1)[0]!);
    expect(posts).toEqual([]);
    expect(kinds(events)).toEqual(['pending:1']);
  });

  it('gives up after --max-retries: the run stops and the batch is pending', async () => {
    const { delivery, posts, events, stops } = setup([response(429)]);
    await delivery.begin(batches(1)[0]!);
    expect(posts).toEqual(['1', '1', '1']);
    expect(stops.reasons).toEqual([{ kind: 'gave-up', detail: 'batch 1: HTTP 429 after 3 attempts' }]);
    expect(kinds(events)).toEqual(['pending:1']);
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
