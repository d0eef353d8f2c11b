import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../../src/http/rate-limiter.js';
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
