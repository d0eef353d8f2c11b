import { UsageError } from '../core/errors.js';
import { RATE_LIMITS } from '../service/index.js';
import { RateLimiter } from './rate-limiter.js';

/** At most `requests` in any window of `perMs`. */
export interface RateWindow {
  requests: number;
  perMs: number;
}

/**
 * The rate scale (TDS_RATE_SCALE, read once into the settings) turned into what the stages of a read
 * use: the windows the client spaces its requests to (and an ETA counts on), and the divisor of its
 * retry waits. Made where the client is built; nothing past that point reads the scale again.
 */
export interface ServiceTimings {
  /** The service's limits for key endpoints (docs/service-api.md section 8), each window divided by the scale. */
  windows: { metadata: RateWindow; rows: RateWindow };
  /** `retry-after`, backoff and the default 10 s are divided by it (RetryPolicy.rateScale). */
  retryScale: number;
}

/** The timings of a client for `rateScale` (1: the service's own limits; tests and the demo run faster). */
export function serviceTimings(rateScale = 1): ServiceTimings {
  if (!(rateScale > 0) || !Number.isFinite(rateScale)) {
    throw new UsageError(`the rate scale must be a positive number (got ${rateScale})`);
  }
  const scaled = ({ requests, perMs }: RateWindow): RateWindow => ({ requests, perMs: perMs / rateScale });
  return { windows: { metadata: scaled(RATE_LIMITS.metadata), rows: scaled(RATE_LIMITS.rows) }, retryScale: rateScale };
}

/** The service's two rate limits for key endpoints (docs/service-api.md section 8). */
export type Bucket = keyof ServiceTimings['windows'];

export type ServiceLimiters = Record<Bucket, RateLimiter>;

/** One limiter per limit, each keeping its window as the timings give it. */
export function createLimiters(windows: ServiceTimings['windows']): ServiceLimiters {
  const make = (window: RateWindow): RateLimiter => new RateLimiter({ limit: window.requests, windowMs: window.perMs });
  return { metadata: make(windows.metadata), rows: make(windows.rows) };
}
