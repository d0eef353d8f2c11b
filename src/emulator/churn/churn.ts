import { performance } from 'node:perf_hooks';
import { CHURN_KINDS, type ChurnKind, type ChurnRates } from './churn-rates.js';
import { fakeValue } from '../seed/fake-values.js';
import { seededId, type FieldRec, type StoredRow, type TableRec, type StoredCell } from '../store/model.js';
import type { CellChanges, LiveRows } from '../store/live-rows.js';
import { createPrng, pick, type Prng } from '../seed/prng.js';
import { GeneratedOverlay } from '../store/generated-overlay.js';
import { webhookRow } from '../webhook/intake.js';

export interface ChurnDeps {
  /** The tables churn may change (read at each tick, so tables added later take part). */
  tables: () => readonly TableRec[];
  live: LiveRows;
  /** The emulator's clock, for createdAt. */
  now: () => number;
  seed: number;
  /** EmulatorState.run (0 when absent). */
  run?: number;
}

const TICK_MS = 50;
/** Changes of one kind in one tick, at most (a stalled event loop does not make a burst). */
const MAX_PER_TICK = 1_000;

/**
 * Adds, updates and deletes rows over time at the spec's rates. Which table, which row and which values
 * follow the seed; how many changes fall in each tick follows the real clock.
 */
export class Churn {
  private readonly random: Prng;
  private readonly carry: Record<ChurnKind, number> = { add: 0, update: 0, delete: 0, rerun: 0 };
  private timer: NodeJS.Timeout | undefined;
  private last = 0;

  constructor(
    private readonly spec: ChurnRates,
    private readonly deps: ChurnDeps,
  ) {
    this.random = createPrng((deps.seed ^ 0x00c4_0a11) >>> 0);
  }

  start(): void {
    this.last = performance.now();
    this.timer = setInterval(() => this.tick(), TICK_MS).unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Makes the changes due since the last tick. */
  tick(elapsedMs = performance.now() - this.last): void {
    this.last = performance.now();
    const tables = this.targets();
    for (const kind of CHURN_KINDS) {
      this.carry[kind] += (this.spec.perSecond[kind] * elapsedMs) / 1000;
      const count = Math.min(MAX_PER_TICK, Math.floor(this.carry[kind]));
      this.carry[kind] -= Math.floor(this.carry[kind]);
      // Updates, deletes and reruns go to tables that have rows (reruns: and action columns), so their rates
      // hold while some tables are empty.
      const candidates = kind === 'add' ? tables : tables.filter((table) => table.rows.size > 0 && (kind !== 'rerun' || hasActions(table)));
      if (count > 0 && candidates.length > 0) this[kind](candidates, count);
    }
  }

  private targets(): TableRec[] {
    const only = this.spec.table;
    return this.deps.tables().filter((table) => only === undefined || table.name === only || table.id === only);
  }

  private add(tables: readonly TableRec[], count: number): void {
    const at = this.deps.now();
    const byTable = new Map<TableRec, StoredRow[]>();
    for (let i = 0; i < count; i += 1) {
      const table = pick(tables, this.random());
      const rows = byTable.get(table) ?? [];
      rows.push(churnRow(table, this.random, this.rowId(), at));
      byTable.set(table, rows);
    }
    for (const [table, rows] of byTable) this.deps.live.arrive(table, rows);
  }

  /**
   * A new row's ID: drawn from the seed, with the run of the state after it from the second run on, so
   * a state restarted from its --data file (the same seed, the same draws) never gives an ID twice.
   */
  private rowId(): string {
    const id = seededId('row_', 16, this.random);
    const run = this.deps.run ?? 0;
    return run === 0 ? id : `${id}_${run}`;
  }

  private update(tables: readonly TableRec[], count: number): void {
    const at = this.deps.now();
    for (let i = 0; i < count; i += 1) {
      const table = pick(tables, this.random());
      const row = table.rows.sample(this.random());
      const editable = table.fields.filter(isEditable);
      if (!row || editable.length === 0) continue; // a table with only system, webhook or action columns
      const changes: CellChanges = {};
      for (let n = 1 + Math.floor(this.random() * 2); n > 0; n -= 1) {
        const field = pick(editable, this.random());
        const value = fakeValue(field, this.random, at);
        changes[field.id] = value === undefined ? null : { value };
      }
      this.deps.live.update(table, row.id, changes);
    }
  }

  private delete(tables: readonly TableRec[], count: number): void {
    for (let i = 0; i < count; i += 1) {
      const table = pick(tables, this.random());
      const row = table.rows.sample(this.random());
      if (row) this.deps.live.remove(table, row.id);
    }
  }

  /** "Re-run column" on a row of each table drawn: its action cells run again. */
  private rerun(tables: readonly TableRec[], count: number): void {
    for (let i = 0; i < count; i += 1) {
      const table = pick(tables, this.random());
      const row = table.rows.sample(this.random());
      if (row) this.deps.live.rerun(table, [row.id]);
    }
  }
}

const hasActions = (table: TableRec): boolean => table.fields.some((field) => field.type === 'action');

/** Churn edits what people edit: not system, webhook or action columns. */
function isEditable(field: FieldRec): boolean {
  return !field.isSystem && field.type !== 'webhook' && field.type !== 'action';
}

/**
 * A new row for churn to add: on a computed table, cells computed from a fresh index (one small object, so
 * memory stays flat); on a webhook-fed table, a posted object of its mapped keys; elsewhere a value per column.
 */
export function churnRow(table: TableRec, random: Prng, id: string, at: number): StoredRow {
  const { rows } = table;
  if (rows instanceof GeneratedOverlay) {
    const index = rows.base.size + rows.added.size + 1;
    return { id, createdAt: at, updatedAt: at, createdByUserId: null, cells: rows.base.cellsAt(index) };
  }
  if (table.webhookId !== undefined) {
    const posted: Record<string, unknown> = {};
    for (const field of table.fields) {
      if (field.mapKey === undefined) continue;
      const value = fakeValue(field, random, at);
      if (value !== undefined) setPath(posted, field.mapKey, value);
    }
    return webhookRow(table, posted, id, at);
  }
  const cells: Record<string, StoredCell> = {};
  for (const field of table.fields) {
    const value = fakeValue(field, random, at);
    if (value !== undefined) cells[field.id] = { value };
  }
  return { id, createdAt: at, updatedAt: at, createdByUserId: null, cells };
}

/** `a.b` sets object.a.b (own properties, even `__proto__`). */
function setPath(object: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  let target = object;
  for (const key of keys.slice(0, -1)) {
    const next = Object.hasOwn(target, key) ? target[key] : undefined;
    const child = next !== null && typeof next === 'object' ? (next as Record<string, unknown>) : {};
    setOwn(target, key, child);
    target = child;
  }
  setOwn(target, keys[keys.length - 1]!, value);
}

function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
