import { performance } from 'node:perf_hooks';
import { RATE_LIMITS, type RateLimitName } from '../../service/index.js';
import { ApiProblem } from '../http/http-io.js';

/** A sliding window log: at most `limit` hits in any `windowMs`; refused hits are not counted. */
export class SlidingWindow {
  private readonly hits = new Map<string, number[]>();
  private takes = 0;

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
  ) {}

  /** 0 when the hit is allowed (and counted), else the ms until the oldest hit leaves the window. */
  take(key: string, now: number): number {
    if ((this.takes += 1) % 10_000 === 0) this.sweep(now);
    let times = this.hits.get(key);
    if (!times) this.hits.set(key, (times = []));
    let expired = 0;
    while (expired < times.length && times[expired]! <= now - this.windowMs) expired += 1;
    if (expired > 0) times.splice(0, expired);
    if (times.length < this.limit) {
      times.push(now);
      return 0;
    }
    return times[0]! + this.windowMs - now;
  }

  private sweep(now: number): void {
    for (const [key, times] of this.hits) {
      if (times.length === 0 || times[times.length - 1]! <= now - this.windowMs) this.hits.delete(key);
    }
  }
}

/**
 * The limits of docs/service-api.md section 8. With `scale` X, windows last 1/X as long, and `retry-after` is
 * still said in service seconds (the real wait times X, rounded up), as the real service would say it.
 */
export class RateLimitEnforcer {
  private readonly windows: Partial<Record<RateLimitName, SlidingWindow>> = {};

  constructor(
    private readonly enabled: boolean,
    private readonly scale: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    for (const name of Object.keys(RATE_LIMITS) as RateLimitName[]) {
      this.windows[name] = new SlidingWindow(RATE_LIMITS[name].requests, RATE_LIMITS[name].perMs / scale);
    }
  }

  /** undefined when allowed, else the `retry-after` seconds to send. */
  check(name: RateLimitName, key: string): number | undefined {
    if (!this.enabled) return undefined;
    const waitMs = this.windows[name]!.take(key, this.now());
    return waitMs > 0 ? Math.max(1, Math.ceil((waitMs * this.scale) / 1000)) : undefined;
  }
}

export function rateLimitMessage(name: RateLimitName): string {
  const { requests, perMs } = RATE_LIMITS[name];
  const per = perMs === 1000 ? 'a second' : 'a minute';
  const what = {
    metadata: 'workspace, table and schema reads per organization',
    rows: 'row reads per organization',
    badKey: 'requests with a missing or wrong key per IP address and key',
    webhook: 'webhook requests per IP address',
  }[name];
  return `Too many requests: the limit is ${requests} ${what} ${per}`;
}

/** Counts the request against the limit; a refusal is thrown as the 429 the service sends. */
export function enforceLimit(limiter: RateLimitEnforcer, name: RateLimitName, key: string): void {
  const retryAfter = limiter.check(name, key);
  if (retryAfter !== undefined) throw new ApiProblem(429, rateLimitMessage(name), { 'retry-after': String(retryAfter) });
}
