import { RATE_LIMITS } from '../service/index.js';
import { RateLimiter } from './rate-limiter.js';

/** The service's two rate limits for key endpoints (service-api.md section 8). */
export type Bucket = 'metadata' | 'rows';

export type Pacing = Record<Bucket, RateLimiter>;

/** One limiter per limit, its window shortened by `rateScale` (TDS_RATE_SCALE, for tests and the demo). */
export function createPacing(rateScale = 1): Pacing {
  const make = (limit: { requests: number; perMs: number }): RateLimiter =>
    new RateLimiter({ limit: limit.requests, windowMs: limit.perMs / rateScale });
  return { metadata: make(RATE_LIMITS.metadata), rows: make(RATE_LIMITS.rows) };
}
