import type { CellStatus } from '../../service/index.js';
import { createPrng, type Prng } from '../seed/prng.js';
import { deriveValue, isEmptyValue } from '../store/cell-values.js';
import { touchRow, type FieldRec, type StoredCell, type StoredRow, type TableRec } from '../store/model.js';

type Phase = 'waiting' | 'queued' | 'running';

interface Run {
  table: TableRec;
  row: StoredRow;
  field: FieldRec;
  phase: Phase;
  /** Drawn when the run starts, so outcomes follow the seed in the order rows arrive. */
  draw: number;
}

export interface ActionRunnerOptions {
  /** Time between two steps of a cell, in ms (0: every step at once). */
  delayMs: number;
  seed: number;
  /** The emulator's clock, for updatedAt. */
  now: () => number;
}

const NOT_DONE: ReadonlySet<CellStatus | null | undefined> = new Set(['queued', 'waiting', 'running']);
const isPhase = (status: CellStatus | null | undefined): status is Phase => NOT_DONE.has(status);

/**
 * Action columns run on rows that arrive: each cell goes queued -> running -> success, failed, skipped or
 * stopped, one step every `delayMs`; a column that depends on another action column is `waiting` until that
 * one is final, then queued, running, final. Every step moves the row's updatedAt.
 */
export class ActionRunner {
  private readonly runs = new Map<StoredRow, Map<string, Run>>();
  private readonly scheduler: StepScheduler<Run>;
  private readonly random: Prng;

  constructor(private readonly options: ActionRunnerOptions) {
    this.random = createPrng((options.seed ^ 0x0ac7_10e5) >>> 0);
    this.scheduler = new StepScheduler(options.delayMs, (runs) => this.step(runs));
  }

  /** Starts every action column of the new rows, except the cells `given` says were sent in. */
  start(table: TableRec, rows: readonly StoredRow[], given?: (row: StoredRow, fieldId: string) => boolean): void {
    const actions = table.fields.filter((field) => field.type === 'action');
    if (actions.length === 0) return;
    for (const row of rows) {
      const runs = new Map<string, Run>();
      for (const field of actions) {
        if (!given?.(row, field.id)) runs.set(field.id, { table, row, field, phase: 'queued', draw: this.random() });
      }
      if (runs.size === 0) continue;
      this.runs.set(row, runs);
      for (const run of runs.values()) {
        run.phase = this.blocked(run) ? 'waiting' : 'queued';
        row.cells[run.field.id] = { status: run.phase };
        if (run.phase === 'queued') this.scheduler.add(run);
      }
    }
    this.scheduler.drain();
  }

  /**
   * Takes up the action cells of these rows that are not final (seeded so, never run here): each goes on from
   * its state like a new run, a step every `delayMs` (running -> final; queued -> running -> final; waiting, once
   * nothing blocks it -> running -> final), its outcome from `draw`.
   */
  resume(table: TableRec, rows: Iterable<StoredRow>, draw: Prng): void {
    const actions = table.fields.filter((field) => field.type === 'action');
    if (actions.length === 0) return;
    for (const row of rows) {
      const runs = new Map<string, Run>();
      for (const field of actions) {
        const status = row.cells[field.id]?.status;
        if (isPhase(status)) runs.set(field.id, { table, row, field, phase: status, draw: draw() });
      }
      if (runs.size === 0 || this.runs.has(row)) continue;
      this.runs.set(row, runs);
      for (const run of runs.values()) {
        if (run.phase === 'waiting' && this.blocked(run)) continue; // release() takes it up
        // an unblocked waiting cell takes its next step straight to running, as a queued one does
        if (run.phase === 'waiting') run.phase = 'queued';
        this.scheduler.add(run);
      }
    }
    this.scheduler.drain();
  }

  /**
   * "Re-run column": the action cells of these rows (of one column, or every action column) go back to
   * queued (waiting behind a column they depend on) and run again, each step moving updatedAt. A cell
   * already under way runs on as it is. Returns the cells sent back.
   */
  rerun(table: TableRec, rows: Iterable<StoredRow>, only?: FieldRec): number {
    const actions = table.fields.filter((field) => field.type === 'action' && (!only || field === only));
    const now = this.options.now();
    let queued = 0;
    for (const row of rows) {
      const runs = this.runs.get(row) ?? new Map<string, Run>();
      const started: Run[] = [];
      for (const field of actions) {
        if (runs.has(field.id)) continue;
        const run: Run = { table, row, field, phase: 'queued', draw: this.random() };
        runs.set(field.id, run);
        started.push(run);
      }
      if (started.length === 0) continue;
      this.runs.set(row, runs);
      for (const run of started) {
        run.phase = this.blocked(run) ? 'waiting' : 'queued';
        row.cells[run.field.id] = { status: run.phase };
        if (run.phase === 'queued') this.scheduler.add(run);
      }
      queued += started.length;
      touchRow(row, now);
    }
    this.scheduler.drain();
    return queued;
  }

  /** The cell was written by hand: its run stops, and columns waiting for it go on if it is final now. */
  cancel(row: StoredRow, fieldId: string): void {
    const runs = this.runs.get(row);
    if (!runs) return;
    runs.delete(fieldId);
    if (runs.size === 0) return void this.runs.delete(row);
    this.release(row);
    this.scheduler.drain();
  }

  /** The row is gone: its runs stop. */
  forgetRow(row: StoredRow): void {
    this.runs.delete(row);
  }

  /** Runs every remaining step now (before the state is saved), and later ones at once. */
  finishAll(): void {
    this.scheduler.finishAll();
  }

  close(): void {
    this.scheduler.clear();
    this.runs.clear();
  }

  private step(runs: readonly Run[]): void {
    const now = this.options.now();
    for (const run of runs) {
      const { row, field } = run;
      if (this.runs.get(row)?.get(field.id) !== run) continue;
      if (field.type !== 'action' || !run.table.fields.includes(field)) {
        this.forget(run);
        continue;
      }
      if (run.phase === 'queued') {
        run.phase = 'running';
        row.cells[field.id] = { status: 'running' };
        this.scheduler.add(run);
      } else {
        row.cells[field.id] = actionOutcome(field, row, run.draw);
        this.forget(run);
        this.release(row, now);
      }
      touchRow(row, now);
    }
  }

  /** Waiting runs of the row whose dependency is final now become queued. */
  private release(row: StoredRow, now = this.options.now()): void {
    for (const run of this.runs.get(row)?.values() ?? []) {
      if (run.phase !== 'waiting' || this.blocked(run)) continue;
      run.phase = 'queued';
      row.cells[run.field.id] = { status: 'queued' };
      touchRow(row, now);
      this.scheduler.add(run);
    }
  }

  private blocked(run: Run): boolean {
    const dependsOn = run.field.action?.dependsOn;
    if (dependsOn === undefined || !run.table.fields.some((field) => field.id === dependsOn)) return false;
    return this.runs.get(run.row)?.has(dependsOn) === true || NOT_DONE.has(run.row.cells[dependsOn]?.status);
  }

  private forget(run: Run): void {
    const runs = this.runs.get(run.row);
    runs?.delete(run.field.id);
    if (runs?.size === 0) this.runs.delete(run.row);
  }
}

/** The realistic mix of final states (cumulative): mostly success. */
const SUCCESS = 0.85;
const FAILED = 0.92;
const SKIPPED = 0.96;

const PROVIDER_ERRORS: readonly unknown[] = [
  'The provider did not answer in time',
  { code: 'RATE_LIMITED', message: 'Provider rate limit reached' },
  'Provider returned an unexpected response',
];

/**
 * The final cell of an action run, from the row as it is when the run ends and a draw in [0, 1) made when
 * it started. An action with an input column (`from`, else the value of the action it depends on) is
 * skipped when that input is empty (its run condition is not met); otherwise the draw decides:
 * success (the derived value, or failed when nothing can be derived), failed, skipped or stopped.
 */
export function actionOutcome(field: FieldRec, row: StoredRow, draw: number): StoredCell {
  const { from, dependsOn, derive } = field.action ?? {};
  const hasInput = from !== undefined || dependsOn !== undefined;
  const input = from !== undefined ? row.cells[from]?.value : dependsOn !== undefined ? dependencyValue(row.cells[dependsOn]) : undefined;
  if (hasInput && isEmptyValue(input)) return { status: 'skipped' };
  if (draw < SUCCESS) {
    if (!hasInput && derive === undefined) return { status: 'success', value: 'ok' };
    const derived = deriveValue(derive, input);
    return 'error' in derived ? { status: 'failed', errorMessage: derived.error } : { status: 'success', value: derived.value };
  }
  if (draw < FAILED) {
    const which = Math.floor(((draw - SUCCESS) / (FAILED - SUCCESS)) * PROVIDER_ERRORS.length);
    return { status: 'failed', errorMessage: PROVIDER_ERRORS[Math.min(which, PROVIDER_ERRORS.length - 1)] };
  }
  return { status: draw < SKIPPED ? 'skipped' : 'stopped' };
}

function dependencyValue(cell: StoredCell | undefined): unknown {
  return cell?.status === 'success' || cell?.status === 'manual' ? cell.value : undefined;
}

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
