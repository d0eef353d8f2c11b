// The limiter that spaces requests (RateLimiter), and the service's timings: its two rate limits' windows as
// the rate scale makes them (serviceTimings), and a limiter per limit (createLimiters).

import { UsageError } from '../core/errors.js';
import { RATE_LIMITS } from '../service/index.js';

export interface RateLimiterOptions {
  /** Requests allowed in any window of `windowMs`. */
  limit: number;
  windowMs: number;
  /** Extra wait past the window, for the gap between our send time and the service's arrival time. */
  marginMs?: number;
  /**
   * Without it, `done()` re-dates a slot to the end of its request. With it, once `limit` requests
   * are done, to at most the spread of the last `limit` requests' durations (slowest − fastest, and
   * this many ms at least) after it was sent. The service counts a request when it arrives; over a far network the way there takes about
   * the same time for every request, within that spread: so the limit is kept without paying the
   * whole round trip in every window.
   */
  spreadFloorMs?: number;
  now?: () => number;
}

/** A slot taken by `acquireSlot()`. */
export interface RateLimitSlot {
  /** Milliseconds spent waiting for the slot. */
  waitedMs: number;
  /**
   * The request is over: its time in the log moves from "sent" to "now" (or towards it: spreadFloorMs).
   * The service counted it on arrival, somewhere between the two. Until then the slot counts as
   * sent "now": a request that waits for a connection after taking its slot may arrive at any time,
   * so it never leaves the window before it is over. (With spreadFloorMs, whose user has a connection
   * for every request in flight, it counts from its send until then.)
   */
  done(): void;
}

interface Entry {
  at: number;
}

/**
 * Paces requests so that no window of `windowMs` holds more than `limit` of them: a sliding log of
 * send times. It never outpaces a service that counts in a sliding window, a fixed window or a token
 * bucket of the same size, and it still allows the full burst first.
 * `pause()` holds every caller (the service said 429: wait `retry-after`).
 */
export class RateLimiter {
  private readonly limit: number;
  private readonly windowMs: number;
  private readonly marginMs: number;
  private readonly now: () => number;
  private readonly spreadFloorMs?: number;
  /** the durations (sent → done) of the last `limit` requests, when re-dating by their spread */
  private readonly durations: number[] = [];
  private durationAt = 0;
  /** Oldest first; `done()` moves an entry to its new time's place. */
  private readonly sent: Entry[] = [];
  /** Slots whose request is not over: each counts in every window until `done()`. */
  private pending = 0;
  /** Wakes the caller waiting for a slot when a request ends (its slot may free one sooner). */
  private wake?: () => void;
  private pausedUntil = 0;
  private sleeps = 0;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(options: RateLimiterOptions) {
    this.limit = options.limit;
    this.windowMs = options.windowMs;
    this.marginMs = options.marginMs ?? Math.ceil(options.windowMs / 100);
    this.now = options.now ?? Date.now;
    if (options.spreadFloorMs !== undefined) this.spreadFloorMs = options.spreadFloorMs;
  }

  /** Waits for a slot (callers are served in order) and records the send. Resolves to the ms waited. */
  acquire(signal?: AbortSignal): Promise<number> {
    return this.take(false, signal).then((slot) => slot.waitedMs);
  }

  /** Like acquire(), but the slot counts as taken "now" until `done()`, then from the end of its request. */
  acquireSlot(signal?: AbortSignal): Promise<RateLimitSlot> {
    return this.take(true, signal);
  }

  private take(pending: boolean, signal?: AbortSignal): Promise<RateLimitSlot> {
    const since = { at: this.now(), sleeps: this.sleeps };
    const turn = this.queue.then(() => this.waitForSlot(since, pending, signal));
    this.queue = turn.catch(() => undefined);
    return turn;
  }

  /** Nobody acquires a slot before `ms` from now (a longer pause already set is kept). */
  pause(ms: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, this.now() + ms);
  }

  /** Milliseconds until the next slot would be free, 0 when one is free now. */
  delayUntilFree(): number {
    return Math.max(0, this.readyAt() - this.now());
  }

  private readyAt(): number {
    const now = this.now();
    const horizon = now - this.windowMs - this.marginMs;
    while (this.sent.length > 0 && this.sent[0]!.at <= horizon) this.sent.shift();
    // the pending slots are the newest: the oldest of the last `limit` is a finished one, or none frees
    const finished = this.limit - this.pending;
    if (finished <= 0) return Infinity;
    let ready = this.pausedUntil;
    if (this.sent.length >= finished) {
      ready = Math.max(ready, this.sent[this.sent.length - finished]!.at + this.windowMs + this.marginMs);
    }
    return ready;
  }

  /** `since`: when the caller asked, and how many pacing sleeps had happened then (its own or those ahead of it). */
  private async waitForSlot(since: { at: number; sleeps: number }, pending: boolean, signal?: AbortSignal): Promise<RateLimitSlot> {
    for (;;) {
      signal?.throwIfAborted();
      const wait = this.readyAt() - this.now();
      if (wait <= 0) {
        const sentAt = this.now();
        // Without any pacing sleep meanwhile, elapsed time was the event loop's, not a wait for the limit.
        const waitedMs = this.sleeps === since.sleeps ? 0 : sentAt - since.at;
        if (!pending) {
          this.insert({ at: sentAt });
          return { waitedMs, done: () => undefined };
        }
        // re-dated by the spread: a connection per request in flight (the webhook's pool), so it went out when sent
        if (this.spreadFloorMs !== undefined) {
          const entry = { at: sentAt };
          this.insert(entry);
          return { waitedMs, done: once(() => this.finish(sentAt, entry)) };
        }
        this.pending += 1;
        const done = once(() => {
          this.pending -= 1;
          this.finish(sentAt);
        });
        return { waitedMs, done };
      }
      this.sleeps += 1;
      await this.sleepOrWake(wait, signal);
    }
  }

  /** Sleeps `ms` (Infinity: until a request ends), or less when a request ends meanwhile. */
  private sleepOrWake(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const end = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.wake = undefined;
      };
      const onAbort = (): void => {
        end();
        reject(signal!.reason);
      };
      const timer = Number.isFinite(ms) ? setTimeout(() => (end(), resolve()), ms) : undefined;
      this.wake = () => (end(), resolve());
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Notes one more duration; the spread of the last `limit` ones (at least spreadFloorMs; until there are that many, no bound). */
  private spread(durationMs: number): number {
    this.durations[this.durationAt] = durationMs;
    this.durationAt = (this.durationAt + 1) % this.limit;
    if (this.durations.length < this.limit) return Infinity;
    return Math.max(this.spreadFloorMs ?? 0, Math.max(...this.durations) - Math.min(...this.durations));
  }

  /** A request sent at `sentAt` is over: it counts from now (or from its spread past `sentAt`, replacing `entry`). */
  private finish(sentAt: number, entry?: Entry): void {
    const now = this.now();
    if (entry) {
      const index = this.sent.indexOf(entry);
      if (index >= 0) this.sent.splice(index, 1);
    }
    this.insert({ at: this.spreadFloorMs === undefined ? now : Math.min(now, sentAt + this.spread(now - sentAt)) });
    this.wake?.();
  }

  private insert(entry: Entry): void {
    let at = this.sent.length;
    while (at > 0 && this.sent[at - 1]!.at > entry.at) at -= 1;
    this.sent.splice(at, 0, entry);
  }
}

function once(work: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    work();
  };
}

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
