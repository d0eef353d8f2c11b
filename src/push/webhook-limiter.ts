import { RateLimiter } from '../http/rate-limiter.js';
import { RATE_LIMITS } from '../spec/index.js';

/** Share of the window kept free: requests leave evenly spread, but a stall anywhere on the way bunches them. */
const MARGIN = 0.05;

/**
 * Paces webhook requests (HEAD included) to `rate` a second, the window shortened by `rateScale`.
 * A 5% margin (50 ms at the real limit) absorbs the jitter between our send times and the
 * service's arrival times: every 429 stops every sender for a whole retry-after (1 s or more), so
 * a few 429s cost more than the margin does.
 */
export function webhookLimiter(rate: number, rateScale: number): RateLimiter {
  const windowMs = RATE_LIMITS.webhook.perMs / rateScale;
  return new RateLimiter({ limit: rate, windowMs, marginMs: windowMs * MARGIN });
}
