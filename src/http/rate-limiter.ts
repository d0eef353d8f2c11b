import { setTimeout as sleep } from 'node:timers/promises';

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
   * The request is over: its time in the log moves from "sent" to "now" (or towards it: spreadFloorMs). The service counted it on arrival, somewhere between the two, so pacing from the later
   * time can never outrun it, even when requests queue for a connection after taking their slot.
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
    return this.acquireSlot(signal).then((slot) => slot.waitedMs);
  }

  /** Like acquire(), and the slot's time can be moved to the end of the request with `done()`. */
  acquireSlot(signal?: AbortSignal): Promise<RateLimitSlot> {
    const since = { at: this.now(), sleeps: this.sleeps };
    const turn = this.queue.then(() => this.waitForSlot(since, signal));
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
    let ready = this.pausedUntil;
    if (this.sent.length >= this.limit) {
      ready = Math.max(ready, this.sent[this.sent.length - this.limit]!.at + this.windowMs + this.marginMs);
    }
    return ready;
  }

  /** `since`: when the caller asked, and how many pacing sleeps had happened then (its own or those ahead of it). */
  private async waitForSlot(since: { at: number; sleeps: number }, signal?: AbortSignal): Promise<RateLimitSlot> {
    for (;;) {
      signal?.throwIfAborted();
      const wait = this.readyAt() - this.now();
      if (wait <= 0) {
        const entry: Entry = { at: this.now() };
        this.sent.push(entry);
        // Without any pacing sleep meanwhile, elapsed time was the event loop's, not a wait for the limit.
        const waitedMs = this.sleeps === since.sleeps ? 0 : this.now() - since.at;
        return { waitedMs, done: () => this.moveToNow(entry) };
      }
      this.sleeps += 1;
      await sleep(wait, undefined, { signal }).catch((error: unknown) => {
        throw signal?.aborted ? signal.reason : error;
      });
    }
  }

  /** Notes one more duration; the spread of the last `limit` ones (at least spreadFloorMs; until there are that many, no bound). */
  private spread(durationMs: number): number {
    this.durations[this.durationAt] = durationMs;
    this.durationAt = (this.durationAt + 1) % this.limit;
    if (this.durations.length < this.limit) return Infinity;
    return Math.max(this.spreadFloorMs ?? 0, Math.max(...this.durations) - Math.min(...this.durations));
  }

  private moveToNow(entry: Entry): void {
    const index = this.sent.indexOf(entry);
    if (index >= 0) this.sent.splice(index, 1);
    const now = this.now();
    entry.at = this.spreadFloorMs === undefined ? now : Math.min(now, entry.at + this.spread(now - entry.at));
    let at = this.sent.length;
    while (at > 0 && this.sent[at - 1]!.at > entry.at) at -= 1;
    this.sent.splice(at, 0, entry);
  }
}
