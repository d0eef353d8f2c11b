import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../../src/http/rate-limiter.js';

describe('RateLimiter slots', () => {
  it('counts a finished request from its end, so queued requests cannot outrun the service', async () => {
    let clock = 0;
    const limiter = new RateLimiter({ limit: 2, windowMs: 1000, marginMs: 0, now: () => clock });
    const first = await limiter.acquireSlot();
    const second = await limiter.acquireSlot();
    expect(limiter.delayUntilFree()).toBe(1000);
    clock = 500;
    first.done();
    expect(limiter.delayUntilFree()).toBe(500); // second (sent at 0) frees at 1000
    clock = 600;
    second.done();
    expect(limiter.delayUntilFree()).toBe(900); // first now ends at 500: frees at 1500
    clock = 1500;
    expect(limiter.delayUntilFree()).toBe(0);
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
