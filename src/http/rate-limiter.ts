import { setTimeout as sleep } from 'node:timers/promises';

export interface RateLimiterOptions {
  /** Requests allowed in any window of `windowMs`. */
  limit: number;
  windowMs: number;
  /** Extra wait past the window, for the gap between our send time and the service's arrival time. */
  marginMs?: number;
  now?: () => number;
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
  private readonly sent: number[] = [];
  private pausedUntil = 0;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(options: RateLimiterOptions) {
    this.limit = options.limit;
    this.windowMs = options.windowMs;
    this.marginMs = options.marginMs ?? Math.ceil(options.windowMs / 100);
    this.now = options.now ?? Date.now;
  }

  /** Waits for a slot (callers are served in order) and records the send. Resolves to the ms waited. */
  acquire(signal?: AbortSignal): Promise<number> {
    const turn = this.queue.then(() => this.waitForSlot(signal));
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
    while (this.sent.length > 0 && this.sent[0]! <= horizon) this.sent.shift();
    let ready = this.pausedUntil;
    if (this.sent.length >= this.limit) {
      ready = Math.max(ready, this.sent[this.sent.length - this.limit]! + this.windowMs + this.marginMs);
    }
    return ready;
  }

  private async waitForSlot(signal?: AbortSignal): Promise<number> {
    const started = this.now();
    for (;;) {
      signal?.throwIfAborted();
      const wait = this.readyAt() - this.now();
      if (wait <= 0) {
        this.sent.push(this.now());
        return this.now() - started;
      }
      await sleep(wait, undefined, { signal }).catch((error: unknown) => {
        throw signal?.aborted ? signal.reason : error;
      });
    }
  }
}
