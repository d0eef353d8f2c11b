import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../../src/http/rate-limiter.js';

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

  it('acquire() keeps the send time', async () => {
    let clock = 0;
    const limiter = new RateLimiter({ limit: 1, windowMs: 100, marginMs: 0, now: () => clock });
    expect(await limiter.acquire()).toBe(0);
    clock = 40;
    expect(limiter.delayUntilFree()).toBe(60);
  });

  it('reports time spent queued behind a paced caller, and none when nobody was paced', async () => {
    const limiter = new RateLimiter({ limit: 1, windowMs: 60, marginMs: 0 });
    const waits = await Promise.all([limiter.acquire(), limiter.acquire(), limiter.acquire()]);
    expect(waits[0]).toBe(0);
    expect(waits[1]).toBeGreaterThanOrEqual(55);
    expect(waits[2]).toBeGreaterThanOrEqual(115);
  });
});
