// The limiter that spaces requests (RateLimiter), and the service's timings: its two rate limits' windows as
// the rate scale makes them (serviceTimings), and a limiter per limit (createLimiters).

import { UsageError } from '../core/index.js';
import { RATE_LIMITS } from '../service/index.js';

export interface RateLimiterOptions {
  /** Requests allowed in any window of `windowMs`. */
  limit: number;
  windowMs: number;
  /** Extra wait past the window, for the gap between our send time and the service's arrival time. */
  marginMs?: number;
  /**
   * Without it, a finished request counts from its end. With it, from when it may have reached the
   * service, which counts it on arrival: the way there takes at least what it took the quickest
   * request so far, so a request that took X ms longer than that one may have arrived up to X ms
   * later than the next one could; it counts from when it left + X + this floor (at most its end),
   * re-reckoned as the quickest drops. So the limit is kept without paying the whole round trip in
   * every window, whatever slowed a request (a stall of either side, a slower spell of the network:
   * the quickest so far, not of a recent few, so a spell that ends cannot make later requests outrun
   * it). Requests count from their end until `limit` have ended of those that left after the first
   * answer (the ones before it each opened a connection, which later ones reuse). Its one assumption:
   * no later request is quicker on its way than the quickest of those by more than the floor and the
   * margin; one that is may draw a 429, which pauses every sender and is retried.
   */
  excessFloorMs?: number;
  now?: () => number;
}

/** A slot taken by `acquireSlot()`. */
export interface RateLimitSlot {
  /** Milliseconds spent waiting for the slot. */
  waitedMs: number;
  /**
   * The request is over: its time in the log moves from "sent" to "now" (or towards it: excessFloorMs).
   * The service counted it on arrival, somewhere between the two. Until then the slot counts as
   * sent "now": a request in flight may arrive at any time, so it never leaves the window before it
   * is over.
   */
  done(): void;
  /**
   * The request leaves now: what came between the slot and now (a journal's fsync) was not on its way
   * to the service, so with excessFloorMs it counts from here. Without a call, from when the slot was taken.
   */
  leaves?(): void;
}

/** A request in the log: when it was sent and when it was over (the same, for acquire()). */
interface Entry {
  sentAt: number;
  doneAt: number;
}

/**
 * Spaces requests so that no window of `windowMs` holds more than `limit` of them: a sliding log of
 * send times. It never runs ahead of a service that counts in a sliding window, a fixed window or a token
 * bucket of the same size, and it still allows the full burst first.
 * `pause()` holds every caller (the service said 429: wait `retry-after`).
 */
export class RateLimiter {
  private readonly limit: number;
  private readonly windowMs: number;
  private readonly marginMs: number;
  private readonly now: () => number;
  private readonly excessFloorMs?: number;
  /** with excessFloorMs: when the first request ended (the ones that left before it opened a connection each) */
  private firstDoneAt?: number;
  /** how many requests that left after it have ended, and the quickest of them (left → done) */
  private answered = 0;
  private quickestSoFarMs = Infinity;
  /** Requests over (or sent, for acquire()), by end, oldest first; a slot's request counts as sent when it left. */
  private readonly log: Entry[] = [];
  /** Slots whose request is not over: each counts in every window until `done()`. */
  private unfinished = 0;
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
    if (options.excessFloorMs !== undefined) this.excessFloorMs = options.excessFloorMs;
  }

  /** Waits for a slot (callers are served in order) and records the send. Resolves to the ms waited. */
  acquire(signal?: AbortSignal): Promise<number> {
    return this.take(false, signal).then((slot) => slot.waitedMs);
  }

  /**
   * Like acquire(), but the slot counts as taken "now" until `done()`, then from the end of its request.
   * `ceiling` (below the limit): the slot waits until the window holds fewer than that many requests.
   */
  acquireSlot(signal?: AbortSignal, ceiling?: number): Promise<RateLimitSlot> {
    return this.take(true, signal, ceiling);
  }

  private take(held: boolean, signal?: AbortSignal, ceiling = this.limit): Promise<RateLimitSlot> {
    const since = { at: this.now(), sleeps: this.sleeps };
    const turn = this.queue.then(() => this.waitForSlot(since, held, Math.min(ceiling, this.limit), signal));
    this.queue = turn.catch(() => undefined);
    return turn;
  }

  /** Nobody acquires a slot before `ms` from now (a longer pause already set is kept). */
  pause(ms: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, this.now() + ms);
  }

  /** Milliseconds until the next slot would be free (under `ceiling`: acquireSlot), 0 when one is free now. */
  delayUntilFree(ceiling = this.limit): number {
    return Math.max(0, this.readyAt(Math.min(ceiling, this.limit)) - this.now());
  }

  private readyAt(limit: number): number {
    const horizon = this.now() - this.windowMs - this.marginMs;
    // an entry counts from its end at the latest
    while (this.log.length > 0 && this.log[0]!.doneAt <= horizon) this.log.shift();
    // the unfinished slots are the newest: the oldest of the last `limit` is a finished one, or none frees
    const finished = limit - this.unfinished;
    if (finished <= 0) return Infinity;
    if (this.log.length < finished) return this.pausedUntil;
    const times = this.log.map((entry) => this.countedAt(entry));
    if (this.quickestMs !== undefined) times.sort((a, b) => a - b);
    return Math.max(this.pausedUntil, times[times.length - finished]! + this.windowMs + this.marginMs);
  }

  /** With excessFloorMs: the quickest request so far, once `limit` of those that left after the first answer have ended. */
  private get quickestMs(): number | undefined {
    return this.excessFloorMs !== undefined && this.answered >= this.limit ? this.quickestSoFarMs : undefined;
  }

  /** When the service may have counted the request of `entry` (excessFloorMs), at most its end. */
  private countedAt({ sentAt, doneAt }: Entry): number {
    if (this.quickestMs === undefined) return doneAt;
    return Math.min(doneAt, sentAt + Math.max(0, doneAt - sentAt - this.quickestMs) + this.excessFloorMs!);
  }

  /** `since`: when the caller asked, and how many limiter sleeps had happened then (its own or those ahead of it). */
  private async waitForSlot(
    since: { at: number; sleeps: number },
    held: boolean,
    limit: number,
    signal?: AbortSignal,
  ): Promise<RateLimitSlot> {
    for (;;) {
      signal?.throwIfAborted();
      const wait = this.readyAt(limit) - this.now();
      if (wait <= 0) {
        const sentAt = this.now();
        // Without any limiter sleep meanwhile, elapsed time was the event loop's, not a wait for the limit.
        const waitedMs = this.sleeps === since.sleeps ? 0 : sentAt - since.at;
        if (!held) {
          this.insert({ sentAt, doneAt: sentAt });
          return { waitedMs, done: () => undefined, leaves: () => undefined };
        }
        this.unfinished += 1;
        let leftAt = sentAt;
        const done = once(() => {
          this.unfinished -= 1;
          this.finish(leftAt);
        });
        return { waitedMs, done, leaves: () => void (leftAt = this.now()) };
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

  /** The request that left at `sentAt` is over (excessFloorMs: its duration is noted). */
  private finish(sentAt: number): void {
    const doneAt = this.now();
    if (this.excessFloorMs !== undefined) {
      this.firstDoneAt ??= doneAt;
      if (sentAt >= this.firstDoneAt) {
        this.answered += 1;
        this.quickestSoFarMs = Math.min(this.quickestSoFarMs, doneAt - sentAt);
      }
    }
    this.insert({ sentAt, doneAt });
    this.wake?.();
  }

  private insert(entry: Entry): void {
    let at = this.log.length;
    while (at > 0 && this.log[at - 1]!.doneAt > entry.doneAt) at -= 1;
    this.log.splice(at, 0, entry);
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
