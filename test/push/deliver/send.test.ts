import { afterEach, describe, expect, it } from 'vitest';
import { RateLimiter } from '../../../src/http/rate-limiter.js';
import type { Batch } from '../../../src/push/plan/batch.js';
import { batches } from '../helpers/batches.js';
import type { JournalEntry } from '../../../src/push/journal/journal-format.js';
import { BatchSender, type SendOptions } from '../../../src/push/deliver/send-batches.js';
import type { SendEvent, StopReason } from '../../../src/push/deliver/classify.js';
import { WebhookClient } from '../../../src/push/deliver/webhook-client.js';
import { webhookTarget } from '../../../src/push/deliver/webhook-target.js';
import { accepted, testWebhook, type Answer, type SeenRequest, type TestWebhook } from '../helpers/webhook-server.js';
import { UNIT_RATE_SCALE } from '../../helpers/rate-scale.js';

const SCALE = UNIT_RATE_SCALE; // retry-after 1 s → 1 ms, the 10 s default → 10 ms

async function* source(list: Batch[]): AsyncGenerator<Batch> {
  yield* list;
}

interface Run {
  events: SendEvent[];
  journal: JournalEntry[];
  stops: StopReason[];
  server: TestWebhook;
}

let servers: TestWebhook[] = [];
let clients: WebhookClient[] = [];
afterEach(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await Promise.all(servers.map((server) => server.close()));
  servers = [];
  clients = [];
});

async function run(
  list: Batch[],
  answer: (request: SeenRequest, journal: JournalEntry[]) => Answer | Promise<Answer>,
  options: Partial<SendOptions> & { timeoutMs?: number } = {},
): Promise<Run> {
  const journal: JournalEntry[] = [];
  const server = await testWebhook((request) => answer(request, journal));
  servers.push(server);
  const target = webhookTarget(server.url);
  const client = new WebhookClient({ target, connections: options.inFlightLimit?.() ?? 4, timeoutMs: options.timeoutMs ?? 5000 });
  clients.push(client);
  const events: SendEvent[] = [];
  const stops = await new BatchSender({
    inFlightLimit: () => 4,
    retry: { maxRetries: 3, rateScale: SCALE, random: () => 0.5 },
    limiter: new RateLimiter({ limit: 100, windowMs: 1000 / SCALE }),
    post: (body) => client.post(body),
    journal: { append: async (entry) => void journal.push(entry) },
    interrupt: new AbortController().signal,
    displayUrl: target.displayUrl,
    redact: target.redact,
    onOutcome: (event) => void events.push(event),
    ...options,
  }).run(source(list));
  return { events, journal, stops, server };
}

const recordsOf = (requests: SeenRequest[]): number[] =>
  requests.flatMap((request) => request.objects.map((object) => (object as { r: number }).r));
const kinds = (events: SendEvent[]): string[] =>
  events.map((event) => `${event.kind}:${event.batch.number}${event.batch.part ? `.${event.batch.part}` : ''}`);

describe('BatchSender', () => {
  it('sends every batch once with at most `concurrency` in flight, journaled before and after', async () => {
    const { events, journal, server, stops } = await run(
      batches(20),
      (request, journal) => {
        // the batch is journaled as sending before its request arrives
        const first = (request.objects[0] as { r: number }).r;
        expect(journal.some((entry) => entry.first === first && entry.state === 'sending')).toBe(true);
        return { ...(accepted(request) as object), delayMs: 20 } as Answer;
      },
      { inFlightLimit: () => 3 },
    );
    expect(stops).toEqual([]);
    expect(server.maxOpen).toBe(3);
    expect(recordsOf(server.requests).sort((a, b) => a - b)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
    expect(events.every((event) => event.kind === 'accepted')).toBe(true);
    for (let b = 1; b <= 20; b += 1) expect(journal.filter((e) => e.batch === b).map((e) => e.state)).toEqual(['sending', 'accepted']);
  });

  it('keeps at most 64 MB of bodies in flight, whatever the count allows', async () => {
    // batches that say they are 40 MB each (the bound counts Batch.bytes): one starts while less than 64 MB are in flight
    const large = batches(6).map((batch) => ({ ...batch, bytes: 40 * 1024 * 1024 }));
    const { stops, server } = await run(large, (request) => ({ ...(accepted(request) as object), delayMs: 20 }) as Answer, {
      inFlightLimit: () => 6,
    });
    expect(stops).toEqual([]);
    expect(server.requests.filter((request) => request.method === 'POST')).toHaveLength(6);
    expect(server.maxOpen).toBe(2);
  });

  it.each([
    ['with retry-after', { 'retry-after': '2' }, 2000],
    ['without retry-after (10 s default)', {}, 10_000],
  ])('resends a batch after a 429 %s, pausing every sender, so each record arrives once', async (_name, headers, waitMs) => {
    const arrivals: number[] = [];
    const { events, server, journal } = await run(
      batches(6),
      (request) => {
        arrivals.push(performance.now());
        return request.n === 2 ? { status: 429, headers } : accepted(request);
      },
      { inFlightLimit: () => 1 },
    );
    const taken = server.requests.filter((request) => request.n !== 2);
    expect(recordsOf(taken).sort((a, b) => a - b)).toEqual(Array.from({ length: 18 }, (_, i) => i + 1));
    expect(events.filter((event) => event.kind === 'accepted')).toHaveLength(6);
    expect(arrivals[2]! - arrivals[1]!).toBeGreaterThanOrEqual(waitMs / SCALE - 1);
    expect(journal.filter((e) => e.batch === 2).map((e) => e.state)).toEqual(['sending', 'unsent', 'sending', 'accepted']);
  });

  it('gives up on a batch after --max-retries 429s and stops starting batches', async () => {
    const { stops, events, server } = await run(batches(5), () => ({ status: 429, headers: { 'retry-after': '1' } }), {
      inFlightLimit: () => 1,
      retry: { maxRetries: 2, rateScale: SCALE, random: () => 0.5 },
    });
    expect(server.requests).toHaveLength(3);
    expect(stops).toMatchObject([{ kind: 'gave-up', detail: expect.stringContaining('after 3 attempts') }]);
    expect(kinds(events)).toEqual(['unsent:1']); // batch 2 was never taken from the input
  });

  it('retries a connection refused before anything was sent, with backoff, then gives up', async () => {
    const closed = await testWebhook(accepted);
    const url = closed.url;
    await closed.close();
    const client = new WebhookClient({ target: webhookTarget(url), connections: 1, timeoutMs: 2000 });
    clients.push(client);
    let attempts = 0;
    const { stops, events, journal } = await run(batches(2), accepted, {
      inFlightLimit: () => 1,
      retry: { maxRetries: 2, rateScale: SCALE, random: () => 0.5 },
      post: (body) => {
        attempts += 1;
        return client.post(body);
      },
    });
    expect(attempts).toBe(3);
    expect(stops[0]).toMatchObject({ kind: 'gave-up', detail: expect.stringContaining('ECONNREFUSED') });
    expect(journal.map((e) => e.state)).toEqual(['sending', 'unsent', 'sending', 'unsent', 'sending', 'unsent']);
    expect(kinds(events)).toEqual(['unsent:1']);
  });

  it('sends after a refused connection once the webhook answers', async () => {
    const closed = await testWebhook(accepted);
    await closed.close();
    const dead = new WebhookClient({ target: webhookTarget(closed.url), connections: 1, timeoutMs: 2000 });
    const liveServer = await testWebhook(accepted);
    servers.push(liveServer);
    const live = new WebhookClient({ target: webhookTarget(liveServer.url), connections: 1, timeoutMs: 2000 });
    clients.push(dead, live);
    let attempts = 0;
    const { events } = await run(batches(2), accepted, {
      inFlightLimit: () => 1,
      post: (body) => (++attempts === 1 ? dead.post(body) : live.post(body)),
    });
    expect(attempts).toBe(3);
    expect(events.map((e) => e.kind)).toEqual(['accepted', 'accepted']);
    expect(recordsOf(liveServer.requests)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it.each<[string, Answer]>([
    ['a 500', { status: 500, body: { message: 'boom' } }],
    ['a 503', { status: 503 }],
    ['a reset after the body arrived', 'reset'],
  ])('makes the batch uncertain on %s, starts no more batches and lets the ones in flight finish', async (_name, fault) => {
    const { stops, events, journal, server } = await run(
      batches(12),
      (request) => (request.n === 3 ? fault : ({ ...(accepted(request) as object), delayMs: 30 } as Answer)),
      { inFlightLimit: () => 3 },
    );
    expect(stops).toMatchObject([{ kind: 'uncertain' }]);
    const uncertain = events.filter((event) => event.kind === 'uncertain');
    expect(uncertain).toHaveLength(1);
    const sent = server.requests.length;
    expect(sent).toBeLessThanOrEqual(5); // 3, plus at most the two already in flight
    expect(events.filter((event) => event.kind === 'accepted')).toHaveLength(sent - 1);
    expect(journal.filter((e) => e.state === 'sending')).toHaveLength(sent);
    expect(journal.filter((e) => e.state === 'uncertain')).toHaveLength(1);
    expect(server.requests.length).toBe(sent);
  });

  it('makes a stalled request uncertain after the timeout', async () => {
    const { stops, events } = await run(batches(3), (request) => (request.n === 1 ? 'stall' : accepted(request)), {
      inFlightLimit: () => 1,
      timeoutMs: 200,
    });
    expect(stops).toMatchObject([{ kind: 'uncertain', detail: expect.stringContaining('UND_ERR_HEADERS_TIMEOUT') }]);
    expect(kinds(events)).toEqual(['uncertain:1']);
  });

  it('splits a batch on 413 down to single objects, then rejects those', async () => {
    const { events, server, journal } = await run(batches(1, 4), (request) =>
      request.objects.some((object) => (object as { r: number }).r === 3) ? { status: 413 } : accepted(request),
    );
    expect(kinds(events)).toEqual(['accepted:1.1', 'rejected:1.2.1', 'accepted:1.2.2']);
    expect(recordsOf(server.requests.filter((r) => !r.objects.some((o) => (o as { r: number }).r === 3)))).toEqual([1, 2, 4]);
    expect(journal.filter((e) => e.state !== 'sending').map((e) => `${e.batch}${e.part ? `.${e.part}` : ''}:${e.state}`)).toEqual([
      '1:split',
      '1.1:accepted',
      '1.2:split',
      '1.2.1:rejected',
      '1.2.2:accepted',
    ]);
  });

  it('rejects the records of a 400 with the service message and goes on', async () => {
    const { events, stops } = await run(
      batches(3),
      (request) =>
        request.n === 2 ? { status: 400, body: { statusCode: 400, error: 'Bad Request', message: 'bad object' } } : accepted(request),
      { inFlightLimit: () => 1 },
    );
    expect(stops).toEqual([]);
    expect(events.map((e) => (e.kind === 'rejected' ? `${e.kind}: ${e.reason}` : e.kind))).toEqual([
      'accepted',
      'rejected: HTTP 400: bad object',
      'accepted',
    ]);
  });

  it('stops on a 404 without resending', async () => {
    const { events, stops, server } = await run(batches(3), (request) => (request.n === 2 ? { status: 404 } : accepted(request)), {
      inFlightLimit: () => 1,
    });
    expect(stops).toMatchObject([{ kind: 'refused', status: 404 }]);
    expect(server.requests).toHaveLength(2);
    expect(kinds(events)).toEqual(['accepted:1', 'unsent:2']);
  });

  it('on interrupt, lets the request in flight finish; batches still waiting for a rate-limit slot are unsent and unjournaled', async () => {
    // One request per second: batch 1 takes the only slot, batches 2–4 (concurrency 4) wait for the next
    // one. The interrupt comes while batch 1's request is at the webhook, long before a second slot frees.
    const interrupt = new AbortController();
    const limiter = new RateLimiter({ limit: 1, windowMs: 1000 });
    let waiting = 0;
    let waitingAtInterrupt = -1;
    const { events, journal, stops, server } = await run(
      batches(6),
      (request) => {
        if (request.n === 1) {
          waitingAtInterrupt = waiting;
          interrupt.abort();
        }
        return { ...(accepted(request) as object), delayMs: 40 } as Answer;
      },
      {
        inFlightLimit: () => 4,
        interrupt: interrupt.signal,
        limiter: {
          acquireSlot: async (signal) => {
            waiting += 1;
            try {
              return await limiter.acquireSlot(signal);
            } finally {
              waiting -= 1;
            }
          },
          pause: (ms) => limiter.pause(ms),
        },
      },
    );
    expect(waitingAtInterrupt).toBe(3); // the test is about these three
    expect(stops).toEqual([{ kind: 'interrupted' }]);
    expect(server.requests).toHaveLength(1);
    expect(kinds(events).sort()).toEqual(['accepted:1', 'unsent:2', 'unsent:3', 'unsent:4']);
    // only the batch whose request left is journaled; the ones that never had a slot are not (not even `unsent`)
    expect(journal.map((e) => `${e.batch}:${e.state}`)).toEqual(['1:sending', '1:accepted']);
  });

  it('lets no batch leave once a 5xx is known, not even one journaled as sending before it came (regression: they left)', async () => {
    // Batch 1 is at the webhook; batch 2 is answered 500; batch 3's "sending" line is still being written
    // when that answer comes, and batch 2's "uncertain" line is written only once batch 3 has gone one way
    // or the other, so the run knows of the 500 only from the answer itself.
    const lines: string[] = [];
    let answered500!: () => void;
    const known500 = new Promise<void>((resolve) => (answered500 = resolve));
    let batch3Decided!: () => void;
    const decided = new Promise<void>((resolve) => (batch3Decided = resolve));
    let writing3!: () => void;
    const batch3Writing = new Promise<void>((resolve) => (writing3 = resolve));
    const posted: number[] = [];
    const { events, stops } = await run(batches(6), accepted, {
      inFlightLimit: () => 3,
      post: async (body) => {
        const batch = Math.ceil((JSON.parse(body.toString()) as Array<{ r: number }>)[0]!.r / 3);
        posted.push(batch);
        if (batch === 3) batch3Decided();
        if (batch === 2) {
          await batch3Writing;
          setImmediate(answered500);
          return { kind: 'response', status: 500, headers: {}, text: '{"message":"boom"}', ms: 1 };
        }
        if (batch === 1) await decided;
        return { kind: 'response', status: 200, headers: {}, text: '{"success":true}', ms: 1 };
      },
      journal: {
        append: async (entry) => {
          if (entry.batch === 3 && entry.state === 'sending') {
            writing3();
            await known500;
          }
          if (entry.batch === 3 && entry.state === 'unsent') batch3Decided();
          if (entry.batch === 2 && entry.state === 'uncertain') await decided;
          lines.push(`${entry.batch}:${entry.state}`);
        },
      },
    });
    expect(posted.sort()).toEqual([1, 2]);
    expect(stops).toMatchObject([{ kind: 'uncertain', detail: 'HTTP 500: boom' }]);
    expect(lines.filter((line) => line.startsWith('3:'))).toEqual(['3:sending', '3:unsent']);
    expect(kinds(events).sort()).toEqual(['accepted:1', 'uncertain:2', 'unsent:3']);
  });

  it('keeps the webhook URL out of journaled reasons', async () => {
    const { journal } = await run(batches(1), () => ({ status: 400, body: { message: `bad request to ${servers[0]!.url}` } }));
    expect(JSON.stringify(journal)).not.toContain('wh_test_secret');
    expect(journal.at(-1)!.reason).toContain('***');
  });
});
