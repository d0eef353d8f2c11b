import { setTimeout as sleep } from 'node:timers/promises';
import type { RateLimiter, RateLimitSlot } from './rate-limiter.js';
import { decideRetry, type AttemptOutcome, type RetryDecision, type RetryPolicy } from './retry-policy.js';

// The one retry mechanism: every attempt takes a limiter slot first, so a retry never outruns a rate
// limit; a 429 pauses the whole limiter (every request waits, this one included); other retries wait
// their backoff. What is worth retrying is decided by retry-policy.ts.

export interface RetryLoop<T> {
  limiter: Pick<RateLimiter, 'acquireSlot' | 'pause'>;
  policy: RetryPolicy;
  /** Aborting it ends the loop with the signal's reason, at the next slot or wait. */
  signal?: AbortSignal;
  /** One try, made while a limiter slot is held (the slot is re-dated to its end); it may say when its request leaves. */
  attempt(slot: Pick<RateLimitSlot, 'leaves'>): Promise<T>;
  /** The outcome to judge for a retry; undefined when the result is final (a success, or no retry question). */
  outcomeOf(result: T): AttemptOutcome | undefined;
  /** After each attempt, before any wait: for logs, counts and journals. */
  onAttempt?(report: AttemptReport<T>): void | Promise<void>;
}

export interface AttemptReport<T> {
  result: T;
  /** 1 for the first attempt. */
  number: number;
  /** Time spent waiting for the limiter slot. */
  limiterWaitMs: number;
  /** Undefined for a final result. */
  decision?: RetryDecision;
}

export interface RetryResult<T> {
  /** The last attempt's result. */
  result: T;
  /** The outcome of every attempt that had a retry question (an empty list: the first one was final). */
  attempts: AttemptOutcome[];
  /** Why the loop stopped retrying; undefined when the last result was final. */
  decision?: Extract<RetryDecision, { retry: false }>;
}

export async function withRetries<T>(loop: RetryLoop<T>): Promise<RetryResult<T>> {
  const attempts: AttemptOutcome[] = [];
  for (let number = 1; ; number += 1) {
    const slot = await loop.limiter.acquireSlot(loop.signal);
    let result: T;
    try {
      result = await loop.attempt(slot);
    } finally {
      slot.done();
    }
    const outcome = loop.outcomeOf(result);
    const decision = outcome && decideRetry(outcome, number - 1, loop.policy);
    if (outcome) attempts.push(outcome);
    await loop.onAttempt?.({ result, number, limiterWaitMs: slot.waitedMs, ...(decision ? { decision } : {}) });
    if (!decision) return { result, attempts };
    if (!decision.retry) return { result, attempts, decision };
    if (decision.reason === 'rate-limited') loop.limiter.pause(decision.waitMs);
    else await wait(decision.waitMs, loop.signal);
  }
}

async function wait(ms: number, signal: AbortSignal | undefined): Promise<void> {
  await sleep(ms, undefined, { signal }).catch((error: unknown) => {
    throw signal?.aborted ? signal.reason : error;
  });
}
