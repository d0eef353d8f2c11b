import { setTimeout as sleep } from 'node:timers/promises';
import { type ApiClient, resolveTable } from '../../http/index.js';
import type { Context } from '../../core/index.js';
import { type Table, UNFINISHED_STATUSES, type Field, type Row } from '../../service/index.js';
import type { PushedKeys } from '../key/record-key.js';
import type { PushJob } from '../push-job.js';
import type { SendResult } from '../input-reads.js';
import { startLiveLine } from '../../output/index.js';
import type { KeyedPush } from '../key/keyed-push.js';
import { KeyedRowsFile, writePushedRows, type RowsOutput } from './write-rows.js';
import type { KeyLookups } from '../key/key-lookups.js';

/** --wait: the rows visible (rowCount), or with --key the rows settled; with -o, the file written. */
export type WaitSummary =
  | ({ mode: 'visible' } & WaitResult)
  | ({ mode: 'settled'; table: string; output: { path: string; format: string; rows: number } | null } & SettledResult);

export interface VisibleWaitOptions {
  client: ApiClient;
  tableId: string;
  /** rowCount before the first POST */
  before: number;
  /** records taken in by this run */
  expected: number;
  timeoutMs: number;
  intervalMs: number;
  signal: AbortSignal;
  onPoll?: (appeared: number) => void;
  /** once the intake window has passed since the last request, rows not shown will not show: they were dropped */
  intake?: { windowMs: number; lastRequestAt: number };
}

export interface WaitResult {
  table: string;
  before: number;
  after: number;
  expected: number;
  appeared: number;
  seconds: number;
  complete: boolean;
  /** the intake window passed with fewer rows shown than were taken in: the service dropped the others */
  dropped?: number;
  /** the records dropped: the last ones the webhook took in (it drops from where its budget or the table ran out) */
  droppedRecords?: Array<{ first: number; last: number }>;
  /** the likely cause, in words */
  droppedCause?: string;
}

/** Polls the table's rowCount (webhook intake is asynchronous) until the new rows show or time runs out. */
export async function waitForRows(options: VisibleWaitOptions): Promise<WaitResult> {
  const started = performance.now();
  let after = options.before;
  /** reads begun after the intake window had passed that found the same row count */
  let steady = 0;
  const result = (): WaitResult => ({
    table: options.tableId,
    before: options.before,
    after,
    expected: options.expected,
    appeared: after - options.before,
    seconds: round((performance.now() - started) / 1000),
    complete: after - options.before >= options.expected,
  });
  const { intake } = options;
  const windowOver = (): boolean => intake !== undefined && Date.now() - intake.lastRequestAt >= intake.windowMs;
  while (after - options.before < options.expected) {
    // two reads begun after the window agree: what shows then is all that will (a service still taking rows in moves on)
    if (steady >= 2) {
      return { ...result(), dropped: options.expected - Math.max(0, after - options.before) };
    }
    const left = options.timeoutMs - (performance.now() - started);
    if (left <= 0) break;
    await sleep(Math.min(options.intervalMs, left), undefined, { signal: options.signal }).catch(() => {
      throw options.signal.reason;
    });
    const wasOver = windowOver();
    const before = after;
    after = (await resolveTable(options.client, options.tableId)).rowCount;
    steady = wasOver && (steady === 0 || after === before) ? steady + 1 : 0;
    options.onPoll?.(after - options.before);
  }
  return result();
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

export interface AfterSending {
  baseline: Table;
  sent: SendResult;
  keyed?: KeyedPush;
  keys: PushedKeys;
  recent?: { since: number; rowsBefore: number };
  /** how often the table is read */
  pollMs: number;
  /** the webhook's longest intake window: rows not shown by then were dropped by the service */
  intakeWindowMs: number;
}

/**
 * --wait: polls the table's rowCount until the rows sent are visible; --wait settled: until the pushed
 * rows' action cells are done, then writes them (-o). An interrupt ends the wait quietly.
 */
export async function waitAfterSending(ctx: Context, job: PushJob, after: AfterSending): Promise<WaitSummary | undefined> {
  const { wait } = job;
  if (!wait || ctx.signal.aborted) return undefined;
  const { sent, baseline, keyed } = after;
  const waiting =
    wait.settled && keyed
      ? sent.stops.length > 0
        ? undefined // not everything is in the table yet: nothing to wait for
        : waitSettled(ctx, {
            keyed,
            keys: after.keys.wanted(),
            ...(after.recent ? { recent: after.recent } : {}),
            timeoutMs: wait.timeoutMs,
            intervalMs: after.pollMs,
            progress: job.report.progress,
            ...(wait.settled.output ? { output: wait.settled.output } : {}),
          })
      : sent.sending.sent.records === 0
        ? undefined
        : waitForRows({
            client: wait.client,
            tableId: baseline.id,
            before: baseline.rowCount,
            expected: sent.sending.sent.records,
            timeoutMs: wait.timeoutMs,
            intervalMs: after.pollMs,
            signal: ctx.signal,
            intake: { windowMs: after.intakeWindowMs, lastRequestAt: sent.lastRequestAt },
          }).then((result) => ({ mode: 'visible' as const, ...result }));
  return waiting?.catch((error: unknown) => {
    if (ctx.signal.aborted) return undefined;
    throw error;
  });
}

interface WaitSettledOptions {
  keyed: KeyedPush;
  /** the keys of the records pushed, in input order */
  keys: string[];
  /** set when every key was sent by this run: none of its rows was created before `since` (the service's clock); the table had `rowsBefore` rows */
  recent?: { since: number; rowsBefore: number };
  timeoutMs: number;
  intervalMs: number;
  progress: boolean;
  output?: RowsOutput;
}

/** --wait settled: the pushed rows waited for until their action cells are done, then written in input order (-o). */
async function waitSettled(ctx: Context, options: WaitSettledOptions): Promise<WaitSummary> {
  const store = await KeyedRowsFile.create();
  try {
    let state: SettledState = { expected: options.keys.length, visible: 0, settled: 0, running: {} };
    const line = options.progress ? await startLiveLine(ctx.io, () => progressText(state), 250) : undefined;
    let result;
    try {
      result = await waitUntilSettled({
        lookups: options.keyed.lookups,
        keys: options.keys,
        ...(options.recent ? { recent: options.recent } : {}),
        fields: options.keyed.fields,
        store,
        timeoutMs: options.timeoutMs,
        intervalMs: options.intervalMs,
        signal: ctx.signal,
        onPoll: (now) => (state = now),
        log: ctx.verbose,
      });
    } finally {
      line?.stop();
    }
    const written = options.output && (await writePushedRows(options.output, options.keyed.fields, options.keys, store));
    return {
      mode: 'settled',
      table: options.keyed.table.id,
      ...result,
      output: written ? { path: written.path, format: written.format, rows: written.rows } : null,
    };
  } finally {
    await store.close();
  }
}

function progressText(state: SettledState): string {
  const n = (value: number): string => value.toLocaleString('en-US');
  const running = Object.entries(state.running).map(([column, cells]) => `${column} ${n(cells)}`);
  return (
    `waiting for the rows: ${n(state.visible)} of ${n(state.expected)} visible · ${n(state.settled)} settled` +
    (running.length > 0 ? ` · running: ${running.join(', ')}` : '')
  );
}

export interface SettledWaitOptions {
  lookups: KeyLookups;
  /** The keys (folded) whose rows are waited for. */
  keys: readonly string[];
  /** Set when every key was sent by this run: the rows created since `since` (the service's clock) can be read newest first. */
  recent?: { since: number; rowsBefore: number };
  fields: readonly Field[];
  store: KeyedRowsFile;
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
 * each is visible and none of its cells is queued, waiting or running, or time runs out. A poll stops at
 * the first page (or query) that holds a row still running, and the next waits as long as its requests
 * take of the row-read limit: the wait ends soon after the actions do, without waiting for a new window. Every row
 * seen is kept in `store` (the last seen version), settled or not.
 */
export async function waitUntilSettled(options: SettledWaitOptions): Promise<SettledResult> {
  const started = performance.now();
  const requestsBefore = options.lookups.requests.wait;
  const pending = new Set(options.keys);
  const labels = new Map(options.fields.map((field) => [field.id, field.label]));
  let state: SettledState = { expected: options.keys.length, visible: 0, settled: 0, running: {} };
  let lastPlan = '';
  const limit = options.lookups.client.timings.windows.rows;
  for (;;) {
    const { plan, lookup } = await options.lookups.rows([...pending], options.recent);
    if (plan.text !== lastPlan) options.log?.(`waiting for the rows to settle: ${plan.text}`);
    lastPlan = plan.text;
    // a part (page or query) holding a row still running ends the poll: the rest can wait for the next
    // one; the last poll before the timeout reads them all, so every row written is its latest seen
    const last = options.timeoutMs - (performance.now() - started) <= options.intervalMs;
    const rows = await lookup.find(
      [...pending],
      last ? undefined : (part) => [...part.values()].some((row) => unfinishedColumns(row).length > 0),
    );
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
    if (pending.size === 0 || (left <= 0 && last)) break;
    // the time ran out during a poll that stopped early (a slow service, a loaded machine): one more, at
    // once, reading them all, or the end would report rows not seen that are there
    if (left <= 0) continue;
    // spaced to the row-read limit: after a poll of N requests, N × (window / limit), so the polls alone
    // never spend a window's requests and a poll never waits for the next window
    const spaced = Math.max(options.intervalMs, (lookup.requests * limit.perMs) / limit.requests);
    await sleep(Math.min(spaced, left), undefined, { signal: options.signal }).catch(() => {
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
