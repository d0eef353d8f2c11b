import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RateLimiter, serviceTimings } from '../../src/http/rate-limiter.js';
import { parseRetryAfter } from '../../src/http/retry-policy.js';

describe('RateLimiter', () => {
  it('allows the full burst, then one request per freed slot of the sliding window', async () => {
    let clock = 0;
    const limiter = new RateLimiter({ limit: 3, windowMs: 1000, marginMs: 0, now: () => clock });
    for (let i = 0; i < 3; i += 1) expect(await limiter.acquire()).toBe(0);
    expect(limiter.delayUntilFree()).toBe(1000);
    clock = 400;
    expect(limiter.delayUntilFree()).toBe(600);
    clock = 1000;
    expect(limiter.delayUntilFree()).toBe(0);
  });

  it('never lets a window hold more than the limit (real clock)', async () => {
    const limiter = new RateLimiter({ limit: 5, windowMs: 200, marginMs: 5 });
    const times: number[] = [];
    await Promise.all(Array.from({ length: 12 }, () => limiter.acquire().then(() => times.push(Date.now()))));
    times.sort((a, b) => a - b);
    for (let i = 5; i < times.length; i += 1) expect(times[i]! - times[i - 5]!).toBeGreaterThanOrEqual(200);
  });

  it('holds every caller during a pause', async () => {
    const limiter = new RateLimiter({ limit: 100, windowMs: 1000 });
    limiter.pause(120);
    const started = Date.now();
    await Promise.all([limiter.acquire(), limiter.acquire()]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(115);
  });

  it('rejects with the abort reason and lets later callers through', async () => {
    const limiter = new RateLimiter({ limit: 1, windowMs: 10_000 });
    await limiter.acquire();
    const controller = new AbortController();
    const waiting = limiter.acquire(controller.signal);
    controller.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
  });
});

describe('parseRetryAfter', () => {
  it.each([
    ['3', 3000],
    ['0', 0],
    ['1.5', 1500],
    [' 10 ', 10_000],
    [undefined, undefined],
    ['', undefined],
    ['soon', undefined],
    ['-1', undefined],
  ])('%j → %j ms', (header, expected) => {
    expect(parseRetryAfter(header)).toBe(expected);
  });

  it('reads an HTTP date relative to now', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:07 GMT', now)).toBe(7000);
    expect(parseRetryAfter('Wed, 31 Dec 2025 23:00:00 GMT', now)).toBe(0);
  });
});

describe('RateLimiter slots', () => {
  it('counts a finished request from its end, so queued requests cannot outrun the service', async () => {
    let clock = 0;
    const limiter = new RateLimiter({ limit: 2, windowMs: 1000, marginMs: 0, now: () => clock });
    const first = await limiter.acquireSlot();
    const second = await limiter.acquireSlot();
    expect(limiter.delayUntilFree()).toBe(Infinity); // no slot frees before a request ends
    clock = 500;
    first.done();
    expect(limiter.delayUntilFree()).toBe(1000); // second is not over: it frees no slot yet; first frees at 1500
    clock = 600;
    second.done();
    expect(limiter.delayUntilFree()).toBe(900); // first now ends at 500: frees at 1500
    clock = 1500;
    expect(limiter.delayUntilFree()).toBe(0);
  });

  it('keeps a slot whose request is not over in the window, however long ago it was taken', async () => {
    // a request queued for a connection reaches the service late: counting it from when it took its
    // slot let a new request through while the service still counted it (a 429 under load)
    let clock = 0;
    const limiter = new RateLimiter({ limit: 2, windowMs: 100, marginMs: 0, now: () => clock });
    const queued = await limiter.acquireSlot();
    clock = 90;
    const answered = await limiter.acquireSlot();
    clock = 95;
    answered.done();
    clock = 150;
    expect(limiter.delayUntilFree()).toBe(45); // answered (ended at 95) frees at 195; queued may arrive now
    clock = 200;
    expect(limiter.delayUntilFree()).toBe(0);
    const next = await limiter.acquireSlot();
    expect(limiter.delayUntilFree()).toBe(Infinity); // both slots are held by requests not over
    clock = 210;
    queued.done();
    next.done();
    expect(limiter.delayUntilFree()).toBe(100);
  });

  it('wakes a caller waiting for a slot when a request ends', async () => {
    const limiter = new RateLimiter({ limit: 1, windowMs: 10, marginMs: 0 });
    const first = await limiter.acquireSlot();
    const second = limiter.acquireSlot();
    let granted = false;
    void second.then(() => (granted = true));
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(granted).toBe(false);
    first.done();
    (await second).done();
    expect(granted).toBe(true);
  });

  it('a slot under a ceiling waits until the window holds fewer than it; other callers keep the limit', async () => {
    let clock = 0;
    const limiter = new RateLimiter({ limit: 5, windowMs: 100, marginMs: 0, now: () => clock });
    for (const at of [0, 10, 20]) {
      clock = at;
      (await limiter.acquireSlot()).done();
    }
    clock = 30;
    expect(limiter.delayUntilFree(3)).toBe(70); // three in the window: the first (ended at 0) leaves at 100
    expect(limiter.delayUntilFree(4)).toBe(0);
    expect(limiter.delayUntilFree(9)).toBe(0); // above the limit: the limit
    expect(limiter.delayUntilFree()).toBe(0);
    const inFlight = await limiter.acquireSlot();
    expect(limiter.delayUntilFree(4)).toBe(70); // the one in flight counts now: four until the first leaves at 100
    clock = 100;
    const slot = await limiter.acquireSlot(undefined, 4);
    expect(limiter.delayUntilFree(3)).toBe(20); // two in flight, and the third (ended at 20) until 120
    expect(limiter.delayUntilFree(2)).toBe(Infinity); // two in flight: none frees before a request ends
    slot.done();
    inFlight.done();
  });

  it('acquire() keeps the send time', async () => {
    let clock = 0;
    const limiter = new RateLimiter({ limit: 1, windowMs: 100, marginMs: 0, now: () => clock });
    expect(await limiter.acquire()).toBe(0);
    clock = 40;
    expect(limiter.delayUntilFree()).toBe(60);
  });

  it('reports time spent queued behind a limited caller, and none when nobody was limited', async () => {
    const limiter = new RateLimiter({ limit: 1, windowMs: 60, marginMs: 0 });
    const waits = await Promise.all([limiter.acquire(), limiter.acquire(), limiter.acquire()]);
    expect(waits[0]).toBe(0);
    expect(waits[1]).toBeGreaterThanOrEqual(55);
    expect(waits[2]).toBeGreaterThanOrEqual(115);
  });
});

describe('serviceTimings', () => {
  it.each([
    [1, 60_000, 60_000],
    [100, 600, 600],
    [0.5, 120_000, 120_000],
  ])('divides every window by the rate scale %s, and keeps the scale for retry waits', (scale, rowsMs, metadataMs) => {
    expect(serviceTimings(scale)).toEqual({
      windows: { rows: { requests: 60, perMs: rowsMs }, metadata: { requests: 300, perMs: metadataMs } },
      retryScale: scale,
    });
  });

  it('is the service’s own limits without a scale', () => {
    expect(serviceTimings()).toEqual(serviceTimings(1));
  });

  it.each([0, -1, Number.NaN, Number.POSITIVE_INFINITY])('refuses the scale %s', (scale) => {
    expect(() => serviceTimings(scale)).toThrow(/the rate scale must be a positive number/);
  });
});

describe('RateLimiter slots with excessFloorMs (a far service counts a request when it arrives)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /**
   * A limiter whose first request (which opened its connection) has ended; `at(ms)` sets the clock to
   * 5 s + ms, so that request is out of every window.
   */
  async function warmed(limit: number): Promise<{ limiter: RateLimiter; at(ms: number): void }> {
    let clock = 0;
    const limiter = new RateLimiter({ limit, windowMs: 1000, marginMs: 0, excessFloorMs: 25, now: () => clock });
    const opener = await limiter.acquireSlot();
    clock = 10;
    opener.done();
    return { limiter, at: (ms) => void (clock = 5000 + ms) };
  }

  it('counts a request from its send + how much slower it was than the quickest + the floor, not from its end', async () => {
    const { limiter, at } = await warmed(2);
    at(0);
    const quick = await limiter.acquireSlot();
    const slow = await limiter.acquireSlot();
    at(200);
    quick.done();
    at(300);
    slow.done();
    // quick counts from 0 + 0 + 25, slow from 0 + 100 + 25: the next slot frees at 1025, not at 1200
    expect(limiter.delayUntilFree()).toBe(725);
    at(1025);
    const next = await limiter.acquireSlot();
    // `next` in flight counts as now; slow (125) is then the oldest of the last 2
    expect(limiter.delayUntilFree()).toBe(100);
    next.done();
  });

  it('counts from the end until `limit` requests that left after the first answer have ended', async () => {
    let clock = 0;
    const limiter = new RateLimiter({ limit: 2, windowMs: 1000, marginMs: 0, excessFloorMs: 25, now: () => clock });
    // both left before any answer: each opened a connection, and neither tells the way's quickest
    const openers = await Promise.all([limiter.acquireSlot(), limiter.acquireSlot()]);
    clock = 200;
    openers.forEach((slot) => slot.done());
    clock = 300;
    expect(limiter.delayUntilFree()).toBe(900); // from their end (200)
    clock = 1200;
    const slots = await Promise.all([limiter.acquireSlot(), limiter.acquireSlot()]);
    clock = 1400;
    slots[0]!.done();
    clock = 1500;
    slots[1]!.done();
    // two that left after the first answer: the quickest is 200; they count from 1200 + 0 + 25 and 1200 + 100 + 25
    clock = 2100;
    expect(limiter.delayUntilFree()).toBe(125);
  });

  it('counts a request from when it left, not from its slot (a journal fsync between is not on its way)', async () => {
    const { limiter, at } = await warmed(2);
    at(0);
    const journaled = await limiter.acquireSlot();
    const direct = await limiter.acquireSlot();
    at(80);
    journaled.leaves?.();
    at(250);
    direct.done();
    at(280);
    journaled.done();
    // on the way: journaled 200 ms (the quickest), direct 250: journaled counts from 80 + 0 + 25, direct from 0 + 50 + 25
    at(1025);
    expect(limiter.delayUntilFree()).toBe(50);
    at(1075);
    await limiter.acquireSlot();
    expect(limiter.delayUntilFree()).toBe(30);
  });

  /** Sends `requests` through a limiter of 20 a second with 8 senders on fake timers; the times the service counted them. */
  async function served(requests: ReadonlyArray<{ thereMs: number; backMs: number }>): Promise<number[]> {
    vi.useFakeTimers({ now: 0 });
    try {
      const limiter = new RateLimiter({ limit: 20, windowMs: 1000, marginMs: 10, excessFloorMs: 25 });
      const arrivals: number[] = [];
      let next = 0;
      const sender = async (): Promise<void> => {
        while (next < requests.length) {
          const { thereMs, backMs } = requests[next++]!;
          const slot = await limiter.acquireSlot();
          setTimeout(() => arrivals.push(Date.now()), thereMs);
          await new Promise((resolve) => setTimeout(resolve, thereMs + backMs));
          slot.done();
        }
      };
      const senders = Promise.all(Array.from({ length: 8 }, sender));
      await vi.runAllTimersAsync();
      await senders;
      return arrivals.sort((a, b) => a - b);
    } finally {
      vi.useRealTimers();
    }
  }

  const withinLimit = (arrivals: number[]): void => {
    for (let i = 20; i < arrivals.length; i += 1) expect(arrivals[i]! - arrivals[i - 20]!).toBeGreaterThanOrEqual(1000);
  };

  // The rule's one assumption: outside stalls and spells, each way varies by less than the floor and the margin.
  const way = fc.record({
    jitter: fc.integer({ min: 0, max: 15 }),
    stall: fc.oneof({ weight: 9, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 700 }) }),
  });
  const ms = ({ jitter, stall }: { jitter: number; stall: number }): number => 100 + jitter + stall;

  it('never lets the service count more than the limit in a window, whatever stalls the way there or back', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.record({ there: way, back: way }), { minLength: 120, maxLength: 120 }), async (requests) => {
        withinLimit(await served(requests.map(({ there, back }) => ({ thereMs: ms(there), backMs: ms(back) }))));
      }),
      { numRuns: 30 },
    );
  });

  it('nor after a slower spell of the way there ends (the quickest so far, not of the recent few)', async () => {
    // spells from the 40th request on: the rule trusts the quickest once 20 requests that left after the first answer ended
    const spell = fc.record({
      from: fc.integer({ min: 40, max: 80 }),
      length: fc.integer({ min: 25, max: 80 }),
      ms: fc.integer({ min: 50, max: 500 }),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ there: way, back: way }), { minLength: 160, maxLength: 160 }),
        spell,
        async (requests, slow) => {
          const inSpell = (i: number): boolean => i >= slow.from && i < slow.from + slow.length;
          withinLimit(
            await served(requests.map(({ there, back }, i) => ({ thereMs: ms(there) + (inSpell(i) ? slow.ms : 0), backMs: ms(back) }))),
          );
        },
      ),
      { numRuns: 30 },
    );
  });
});
