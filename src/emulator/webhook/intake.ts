import { freshId, type TableRec } from '../store/model.js';
import type { LiveRows } from '../store/live-rows.js';
import { webhookRow } from './row.js';

interface Pending {
  table: TableRec;
  rows: ReturnType<typeof webhookRow>[];
  quiet?: NodeJS.Timeout;
  deadline?: NodeJS.Timeout;
}

/**
 * Webhook rows become visible asynchronously: `delayMs` after the last request to the table, and at most
 * `MAX_FACTOR` x `delayMs` after the first pending one while requests keep arriving (docs/service-api.md 4.7: about
 * 5 s and 30 s). Every pending row of the table shows at once, in the order of the requests. Rows keep the
 * time of their request as createdAt; their action columns start when they show.
 *
 * `delayMs` is in service time: with a rate scale X (the emulator's --rate-scale, as TDS_RATE_SCALE scales
 * the client's waits for the same intake), both windows last 1/X as long.
 */
export class Intake {
  static readonly MAX_FACTOR = 6;
  private readonly pending = new Map<string, Pending>();
  /** the quiet delay as it really runs */
  private readonly quietMs: number;

  constructor(
    delayMs: number,
    private readonly now: () => number,
    private readonly live: LiveRows,
    rateScale = 1,
  ) {
    this.quietMs = delayMs / rateScale;
  }

  add(table: TableRec, objects: ReadonlyArray<Record<string, unknown>>): void {
    let entry = this.pending.get(table.id);
    if (!entry) this.pending.set(table.id, (entry = { table, rows: [] }));
    const at = this.now();
    for (const object of objects) entry.rows.push(webhookRow(table, object, freshId('row_', 16), at));
    clearTimeout(entry.quiet);
    entry.quiet = setTimeout(() => this.flush(table.id), this.quietMs).unref();
    entry.deadline ??= setTimeout(() => this.flush(table.id), this.quietMs * Intake.MAX_FACTOR).unref();
  }

  /** Makes every pending row visible now. */
  flushAll(): void {
    for (const tableId of [...this.pending.keys()]) this.flush(tableId);
  }

  private flush(tableId: string): void {
    const entry = this.pending.get(tableId);
    if (!entry) return;
    this.pending.delete(tableId);
    clearTimeout(entry.quiet);
    clearTimeout(entry.deadline);
    this.live.arrive(entry.table, entry.rows);
  }
}
