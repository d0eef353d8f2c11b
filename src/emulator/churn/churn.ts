import { performance } from 'node:perf_hooks';
import { churnRow } from './churn-row.js';
import { CHURN_KINDS, type ChurnKind, type ChurnRates } from './churn-rates.js';
import { fakeValue } from '../seed/fake-value.js';
import { seededId, type FieldRec, type StoredRow, type TableRec } from '../store/model.js';
import type { CellChanges, LiveRows } from '../store/live-rows.js';
import { createPrng, pick, type Prng } from '../seed/prng.js';

export interface ChurnDeps {
  /** The tables churn may change (read at each tick, so tables added later take part). */
  tables: () => readonly TableRec[];
  live: LiveRows;
  /** The emulator's clock, for createdAt. */
  now: () => number;
  seed: number;
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
      rows.push(churnRow(table, this.random, seededId('row_', 16, this.random), at));
      byTable.set(table, rows);
    }
    for (const [table, rows] of byTable) this.deps.live.arrive(table, rows);
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
