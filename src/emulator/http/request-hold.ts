import type { IncomingMessage } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

// The simulator's hold on the service's requests (test/sim/; set through /_emulator/hold, admin/sim-hooks.ts):
// a client killed "at request N" is killed at the same point of its work on every replay.

/**
 * Holds the service's requests (every surface) from the N-th after it was set, until released (or, with
 * `ms`, for that long each: slow answers from then on): the held request waits before anything of it is
 * handled, and one whose client went away meanwhile is dropped.
 */
export class RequestHold {
  private arrived = 0;
  private from: number | undefined;
  private held = 0;
  private release: (() => void) | undefined;
  private gate: Promise<void> = Promise.resolve();
  private ms: number | undefined;

  /** Counts a request; resolves when it may go on (false: its client is gone, nothing more is done). */
  async pass(req: IncomingMessage): Promise<boolean> {
    this.arrived += 1;
    if (this.from === undefined || this.arrived < this.from) return true;
    this.held += 1;
    await (this.ms === undefined ? this.gate : sleep(this.ms));
    return !req.socket.destroyed;
  }

  /** Holds the `after`-th request from now and every one after it (until released, or `ms` each). */
  set(after: number, ms?: number): void {
    this.open();
    this.from = this.arrived + after;
    this.ms = ms;
    this.gate = new Promise<void>((resolve) => (this.release = resolve));
  }

  /** Lets the held requests go on and holds no more. */
  open(): void {
    this.from = undefined;
    this.ms = undefined;
    this.held = 0;
    this.release?.();
    this.release = undefined;
  }

  state(): { arrived: number; held: number } {
    return { arrived: this.arrived, held: this.held };
  }
}
