import { WEBHOOK_MAX_OBJECTS } from '../../service/index.js';
import { badRequest } from '../http/http-io.js';
import { freshId, type TableRec, type StoredCell, type StoredRow } from '../store/model.js';
import type { LiveRows } from '../store/live-rows.js';

interface Held {
  table: TableRec;
  /**
   * The bodies taken in, as posted, and when each came: they become rows when they show. Bytes cost
   * the garbage collector nothing; a million posted objects held as rows made it stall for 100s of ms.
   */
  bodies: Array<{ body: Buffer; at: number; keep: number }>;
  /** rows the bodies hold that will show (the kept ones) */
  rows: number;
  quiet?: NodeJS.Timeout;
  deadline?: NodeJS.Timeout;
  /** when (performance.now(), the timers' clock) the first request held came, and the last */
  firstMs?: number;
  lastMs?: number;
}

/**
 * Webhook rows become visible asynchronously: `delayMs` after the last request to the table, and at most
 * `MAX_FACTOR` x `delayMs` after the first one held while requests keep arriving (docs/service-api.md 4.7: about
 * 5 s and 30 s). Every row the intake holds for the table shows at once, in the order of the requests. Rows keep the
 * time of their request as createdAt; their action columns start when they show.
 *
 * `delayMs` is in service time: with a rate scale X (the emulator's --rate-scale, as TDS_RATE_SCALE scales
 * the client's waits for the same intake), both windows last 1/X as long.
 */
export class Intake {
  static readonly MAX_FACTOR = 6;
  private readonly held = new Map<string, Held>();
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

  /** A body parseWebhookBody accepted: its first `keep` objects (all by default) become rows when they show. */
  add(table: TableRec, body: Buffer, keep = Infinity): void {
    let entry = this.held.get(table.id);
    if (!entry) this.held.set(table.id, (entry = { table, bodies: [], rows: 0 }));
    entry.bodies.push({ body, at: this.now(), keep });
    entry.rows += Number.isFinite(keep) ? keep : parseWebhookBody(body).rows.length;
    entry.lastMs = performance.now();
    entry.firstMs ??= entry.lastMs;
    clearTimeout(entry.quiet);
    entry.quiet = setTimeout(() => this.flush(table.id), this.quietMs).unref();
    entry.deadline ??= setTimeout(() => this.flush(table.id), this.quietMs * Intake.MAX_FACTOR).unref();
  }

  /** Rows of the table taken in and not visible yet. */
  heldRows(tableId: string): number {
    return this.held.get(tableId)?.rows ?? 0;
  }

  /**
   * Shows the rows whose time has come, before a request is answered: a timer runs late on a busy event
   * loop (this process may be a test's, running tds too), and an answer must not depend on whether it has
   * run yet (a client that waited out the longest window took a read that met the rows still held for
   * rows the service dropped).
   */
  showDue(): void {
    const now = performance.now();
    for (const [tableId, entry] of [...this.held]) {
      const due = Math.min(entry.lastMs! + this.quietMs, entry.firstMs! + this.quietMs * Intake.MAX_FACTOR);
      if (now >= due) this.flush(tableId);
    }
  }

  /** Makes every row the intake holds visible now. */
  flushAll(): void {
    for (const tableId of [...this.held.keys()]) this.flush(tableId);
  }

  private flush(tableId: string): void {
    const entry = this.held.get(tableId);
    if (!entry) return;
    this.held.delete(tableId);
    clearTimeout(entry.quiet);
    clearTimeout(entry.deadline);
    const rows = entry.bodies.flatMap(({ body, at, keep }) =>
      parseWebhookBody(body)
        .rows.slice(0, keep)
        .map((object) => webhookRow(entry.table, object, freshId('row_', 16), at)),
    );
    this.live.arrive(entry.table, rows);
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

export interface WebhookObjects {
  /** Every object in the body, empty ones included. */
  total: number;
  /** The objects that become rows. */
  rows: Array<Record<string, unknown>>;
}

/**
 * Not a rule of the service's spec: rows are served, searched and saved as JSON text, which JavaScript cannot
 * write past a few thousand levels, so a deeper body would make every later read of its table fail. The emulator
 * refuses it up front, as any real JSON store refuses some depth.
 */
export const WEBHOOK_MAX_NESTING = 1000;

/** The three body forms: one object, an array of objects, or `{data: [...]}`. Empty objects are skipped. */
export function parseWebhookBody(body: Buffer): WebhookObjects {
  if (body.length === 0) throw badRequest('body is empty: send a JSON object, an array of objects, or {"data": [...]}');
  const text = body.toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw badRequest('body is not valid JSON');
  }
  if (nesting(text) > WEBHOOK_MAX_NESTING) throw badRequest(`body nests objects and arrays more than ${WEBHOOK_MAX_NESTING} levels deep`);
  const list = Array.isArray(parsed)
    ? parsed
    : isObject(parsed) && Array.isArray(parsed.data)
      ? parsed.data
      : isObject(parsed)
        ? [parsed]
        : undefined;
  if (!list) throw badRequest('body must be a JSON object, an array of objects, or {"data": [...]}');
  if (list.length > WEBHOOK_MAX_OBJECTS) {
    throw badRequest(`too many objects (${list.length}): a maximum of ${WEBHOOK_MAX_OBJECTS} per request`);
  }
  const bad = list.findIndex((item) => !isObject(item));
  if (bad >= 0) throw badRequest(`entry ${bad} is not an object: each entry becomes one row and must be a JSON object`);
  const rows = (list as Array<Record<string, unknown>>).filter((item) => Object.keys(item).length > 0);
  if (rows.length === 0) throw badRequest('nothing to add: every object in the body is empty');
  return { total: list.length, rows };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The deepest nesting of `[` and `{` in valid JSON text, strings skipped; a loop, so any depth is safe to measure. */
function nesting(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i];
    if (inString) {
      if (char === '\\') i += 1;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === '{' || char === '[') deepest = Math.max(deepest, (depth += 1));
    else if (char === '}' || char === ']') depth -= 1;
  }
  return deepest;
}
