import { setTimeout as sleep } from 'node:timers/promises';
import { UNFINISHED_STATUSES, type Field, type Row } from '../../service/index.js';
import type { KeyLookups } from '../key/key-lookups.js';
import type { RowStore } from './row-store.js';

export interface SettledWaitOptions {
  lookups: KeyLookups;
  /** The keys (folded) whose rows are waited for. */
  keys: readonly string[];
  /** Set when every key was sent by this run: the rows created since `since` (the service's clock) can be read newest first. */
  recent?: { since: number; rowsBefore: number };
  fields: readonly Field[];
  store: RowStore;
  timeoutMs: number;
  intervalMs: number;
  signal: AbortSignal;
  onPoll?: (state: SettledState) => void;
  log?: (line: string) => void;
}

/** Where the wait stands: rows visible, rows settled, and per column the cells still running. */
export interface SettledState {
  expected: number;
  visible: number;
  settled: number;
  /** column label → cells queued, waiting or running */
  running: Record<string, number>;
}

export interface SettledResult extends SettledState {
  seconds: number;
  complete: boolean;
  /** row requests the polls made */
  requests: number;
}

const UNFINISHED: ReadonlySet<string> = new Set(UNFINISHED_STATUSES);

/**
 * --wait settled: polls the pushed rows (by the cheapest lookup of the keys not settled yet) until
 * each is visible and none of its cells is queued, waiting or running, or time runs out. Every row
 * seen is kept in `store` (the last seen version), settled or not.
 */
export async function waitUntilSettled(options: SettledWaitOptions): Promise<SettledResult> {
  const started = performance.now();
  const requestsBefore = options.lookups.requests.wait;
  const pending = new Set(options.keys);
  const labels = new Map(options.fields.map((field) => [field.id, field.label]));
  let state: SettledState = { expected: options.keys.length, visible: 0, settled: 0, running: {} };
  let lastPlan = '';
  for (;;) {
    const { plan, lookup } = await options.lookups.rows([...pending], options.recent);
    if (plan.text !== lastPlan) options.log?.(`waiting for the rows to settle: ${plan.text}`);
    lastPlan = plan.text;
    const rows = await lookup.find([...pending]);
    const running: Record<string, number> = {};
    for (const [key, row] of rows) {
      await options.store.put(key, row);
      const columns = unfinishedColumns(row);
      if (columns.length === 0) pending.delete(key);
      for (const id of columns) running[labels.get(id) ?? id] = (running[labels.get(id) ?? id] ?? 0) + 1;
    }
    const settled = options.keys.length - pending.size;
    state = {
      expected: options.keys.length,
      visible: settled + [...rows.keys()].filter((key) => pending.has(key)).length,
      settled,
      running,
    };
    options.onPoll?.(state);
    const left = options.timeoutMs - (performance.now() - started);
    if (pending.size === 0 || left <= 0) break;
    await sleep(Math.min(options.intervalMs, left), undefined, { signal: options.signal }).catch(() => {
      throw options.signal.reason;
    });
  }
  const seconds = Math.round((performance.now() - started) / 10) / 100;
  return { ...state, seconds, complete: pending.size === 0, requests: options.lookups.requests.wait - requestsBefore };
}

/** The fields whose cells in the row still run (queued, waiting or running). */
function unfinishedColumns(row: Row): string[] {
  return Object.entries(row.cells)
    .filter(([, cell]) => cell.status != null && UNFINISHED.has(cell.status))
    .map(([id]) => id);
}
