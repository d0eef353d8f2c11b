/**
 * The emulator's clock: the real clock (or the one a test gives) plus an offset that the admin route sets.
 * Row creation times, updatedAt and date presets read it; timers and rate limits keep real time.
 */
export class EmulatorClock {
  constructor(
    private readonly base: () => number,
    private offset = 0,
  ) {}

  readonly now = (): number => this.base() + this.offset;

  /** The clock without the offset: the request log keeps real arrival times. */
  readonly realNow = (): number => this.base();

  get offsetMs(): number {
    return this.offset;
  }

  setOffset(offsetMs: number): void {
    this.offset = offsetMs;
  }

  advance(ms: number): void {
    this.offset += ms;
  }
}
