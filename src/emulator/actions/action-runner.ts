import type { CellStatus } from '../../service/index.js';
import { actionOutcome } from './action-outcome.js';
import type { FieldRec, StoredRow, TableRec } from '../store/model.js';
import { createPrng, type Prng } from '../seed/prng.js';
import { StepScheduler } from './step-scheduler.js';
import { touchRow } from '../store/touch-row.js';

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
