import type { Context } from '../core/context.js';
import type { Table } from '../service/index.js';
import type { PushedKeys } from './key/record-key.js';
import type { PushJob } from './push-job.js';
import type { SendResult } from './send-pass.js';
import { waitForRows } from './wait/wait-rows.js';
import { startLiveLine } from '../output/live-line.js';
import type { KeyedPush } from './key/keyed-push.js';
import type { WaitSummary } from './report/summary.js';
import { RowStore } from './wait/row-store.js';
import { waitUntilSettled, type SettledState } from './wait/settled-wait.js';
import { writePushedRows, type RowsOutput } from './wait/write-rows.js';

export interface AfterSending {
  baseline: Table;
  sent: SendResult;
  keyed?: KeyedPush;
  keys: PushedKeys;
  recent?: { since: number; rowsBefore: number };
  /** how often the table is read */
  pollMs: number;
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
        : settledPass(ctx, {
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
          }).then((result) => ({ mode: 'visible' as const, ...result }));
  return waiting?.catch((error: unknown) => {
    if (ctx.signal.aborted) return undefined;
    throw error;
  });
}

interface SettledPassOptions {
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
async function settledPass(ctx: Context, options: SettledPassOptions): Promise<WaitSummary> {
  const store = await RowStore.create();
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
