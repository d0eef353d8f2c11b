import { RateLimiter } from '../../http/rate-limiter.js';

/** Share of the window kept free for the jitter between our clock and the service's. */
const MARGIN = 0.01;

/**
 * Paces webhook requests (HEAD included) to `rate` in any window of `windowMs` (the webhook's second, scaled).
 * Each slot is re-dated to the end of its request (RateLimitSlot.done), after the service counted
 * it, so requests that bunch on the way (a stall in either process) cannot draw a 429; every 429
 * stops every sender for a whole retry-after (1 s or more).
 */
export function webhookLimiter(rate: number, windowMs: number): RateLimiter {
  return new RateLimiter({ limit: rate, windowMs, marginMs: windowMs * MARGIN });
}
