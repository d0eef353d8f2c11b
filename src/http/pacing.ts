import { RateLimiter } from './rate-limiter.js';
import type { RateWindow, ServicePace } from './service-pace.js';

/** The service's two rate limits for key endpoints (service-api.md section 8). */
export type Bucket = keyof ServicePace['windows'];

export type Pacing = Record<Bucket, RateLimiter>;

/** One limiter per limit, each keeping its window as the pace gives it. */
export function createPacing(windows: ServicePace['windows']): Pacing {
  const make = (window: RateWindow): RateLimiter => new RateLimiter({ limit: window.requests, windowMs: window.perMs });
  return { metadata: make(windows.metadata), rows: make(windows.rows) };
}
