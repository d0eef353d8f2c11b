/**
 * Runs items `delayMs` after they were added, in batches: due times are rounded up to a grain (1/20 of the
 * delay, 1 to 100 ms), and each due time has one timer (unref'd), however many items share it. With delay
 * 0, or once `finishAll` was called, items run in `drain()`, in the same turn that added them.
 */
export class StepScheduler<T> {
  private readonly due = new Map<number, T[]>();
  private readonly timers = new Map<number, NodeJS.Timeout>();
  private readonly grain: number;
  private pending: T[] = [];
  private instant: boolean;
  private draining = false;

  constructor(
    private readonly delayMs: number,
    private readonly run: (items: T[]) => void,
  ) {
    this.grain = Math.min(100, Math.max(1, Math.floor(delayMs / 20)));
    this.instant = delayMs === 0;
  }

  get size(): number {
    let count = this.pending.length;
    for (const items of this.due.values()) count += items.length;
    return count;
  }

  add(item: T): void {
    if (this.instant) {
      this.pending.push(item);
      return;
    }
    const at = Math.ceil((Date.now() + this.delayMs) / this.grain) * this.grain;
    const items = this.due.get(at);
    if (items) return void items.push(item);
    this.due.set(at, [item]);
    this.timers.set(at, setTimeout(() => this.fire(at), Math.max(0, at - Date.now())).unref());
  }

  /** Runs what is pending now (delay 0, or after finishAll), including what those runs add. */
  drain(): void {
    if (this.draining) return;
    this.draining = true;
    try {
      while (this.pending.length > 0) {
        const items = this.pending;
        this.pending = [];
        this.run(items);
      }
    } finally {
      this.draining = false;
    }
  }

  /** Runs everything now, in due order, and from then on runs what is added at once. */
  finishAll(): void {
    this.instant = true;
    for (const at of [...this.due.keys()].sort((a, b) => a - b)) this.pending.push(...this.take(at));
    this.drain();
  }

  /** Drops everything without running it. */
  clear(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.due.clear();
    this.pending = [];
  }

  private fire(at: number): void {
    const items = this.take(at);
    if (items.length > 0) this.run(items);
    this.drain();
  }

  private take(at: number): T[] {
    clearTimeout(this.timers.get(at));
    this.timers.delete(at);
    const items = this.due.get(at) ?? [];
    this.due.delete(at);
    return items;
  }
}
