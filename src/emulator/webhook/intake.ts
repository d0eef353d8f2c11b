import { freshId, type TableRec, type StoredCell, type StoredRow } from '../store/model.js';
import type { LiveRows } from '../store/live-rows.js';

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

/** One posted object as a row: the webhook column keeps the whole object, mapped columns fill in. */
export function webhookRow(table: Pick<TableRec, 'fields'>, object: Record<string, unknown>, id: string, at: number): StoredRow {
  const cells: Record<string, StoredCell> = {};
  for (const field of table.fields) {
    if (field.type === 'webhook') cells[field.id] = { value: object };
    else if (field.mapKey !== undefined) {
      const value = readPath(object, field.mapKey);
      if (value !== undefined && value !== null && value !== '') cells[field.id] = { value };
    }
  }
  return { id, createdAt: at, updatedAt: at, createdByUserId: null, cells };
}

/** `address.city` reads object.address.city; a key that itself contains a dot is found too. */
function readPath(object: unknown, path: string): unknown {
  if (object === null || typeof object !== 'object') return undefined;
  const record = object as Record<string, unknown>;
  // own keys only: a key such as `constructor` or `__proto__` reads nothing the object was not sent with
  if (Object.hasOwn(record, path)) return record[path];
  const dot = path.indexOf('.');
  if (dot < 0 || !Object.hasOwn(record, path.slice(0, dot))) return undefined;
  return readPath(record[path.slice(0, dot)], path.slice(dot + 1));
}
