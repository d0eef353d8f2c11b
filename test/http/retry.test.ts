import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../../src/http/rate-limiter.js';
import { withRetries, type AttemptReport } from '../../src/http/retry.js';
import type { AttemptOutcome } from '../../src/http/retry-policy.js';
import { UNIT_RATE_SCALE } from '../helpers/rate-scale.js';

/** A limiter that counts slots taken and pauses asked for, and never waits. */
function countingLimiter() {
  const seen = { slots: 0, done: 0, pauses: [] as number[] };
  return {
    seen,
    limiter: {
      acquireSlot: async () => {
        seen.slots += 1;
        return { waitedMs: 0, done: () => void (seen.done += 1) };
      },
      pause: (ms: number) => void seen.pauses.push(ms),
    },
  };
}

const status = (code: number, retryAfterMs?: number): AttemptOutcome => ({
  kind: 'status',
  status: code,
  ...(retryAfterMs ? { retryAfterMs } : {}),
});

/** Runs the loop over scripted outcomes (undefined = a final result). */
async function script(outcomes: Array<AttemptOutcome | undefined>, options: { maxRetries?: number; idempotent?: boolean } = {}) {
  const { limiter, seen } = countingLimiter();
  const reports: AttemptReport<number>[] = [];
  let calls = 0;
  const result = await withRetries<number>({
    limiter,
    policy: { maxRetries: options.maxRetries ?? 5, idempotent: options.idempotent ?? true, rateScale: UNIT_RATE_SCALE, random: () => 0 },
    attempt: async () => calls++,
    outcomeOf: (n) => outcomes[n],
    onAttempt: (report) => void reports.push(report),
  });
  return { result, reports, seen, calls };
}

describe('withRetries', () => {
  it('takes a limiter slot for every attempt, the first one included, and frees each', async () => {
    const { result, seen, calls } = await script([status(500), status(503), undefined]);
    expect(calls).toBe(3);
    expect(seen).toMatchObject({ slots: 3, done: 3 });
    expect(result).toEqual({ result: 2, attempts: [status(500), status(503)] });
  });

  it('pauses the whole limiter on a 429 (for retry-after, scaled) instead of sleeping on its own', async () => {
    const { seen, reports } = await script([status(429, 2000), status(429), undefined]);
    expect(seen.pauses).toEqual([2, 10]);
    expect(reports.map((report) => report.decision?.retry)).toEqual([true, true, undefined]);
  });

  it('returns the last result with the reason when it stops retrying', async () => {
    const exhausted = await script([status(500), status(500), status(500)], { maxRetries: 2 });
    expect(exhausted.result).toMatchObject({ result: 2, decision: { retry: false, why: 'exhausted' } });
    const final = await script([status(404)]);
    expect(final.result).toMatchObject({ result: 0, attempts: [status(404)], decision: { retry: false, why: 'final' } });
  });

  it('retries a 5xx only for idempotent requests', async () => {
    const post = await script([status(500), undefined], { idempotent: false });
    expect(post.calls).toBe(1);
    expect(post.result.decision).toMatchObject({ why: 'final' });
  });

  it('frees the slot when the attempt throws, and ends with the abort reason when the signal aborts', async () => {
    const { limiter, seen } = countingLimiter();
    const failing = withRetries({
      limiter,
      policy: { maxRetries: 1, idempotent: true },
      attempt: async () => Promise.reject(new Error('boom')),
      outcomeOf: () => undefined,
    });
    await expect(failing).rejects.toThrow('boom');
    expect(seen.done).toBe(1);

    const controller = new AbortController();
    const real = new RateLimiter({ limit: 1, windowMs: 60_000 });
    const reason = new Error('stop');
    let calls = 0;
    const loop = withRetries({
      limiter: real,
      signal: controller.signal,
      // a backoff of about 500 ms: the abort comes while the loop waits
      policy: { maxRetries: 5, idempotent: true, random: () => 0.99 },
      attempt: async () => calls++,
      outcomeOf: (): AttemptOutcome => ({ kind: 'network', code: 'ECONNRESET' }),
    });
    setTimeout(() => controller.abort(reason), 20);
    await expect(loop).rejects.toBe(reason);
    expect(calls).toBe(1);
  });
});
