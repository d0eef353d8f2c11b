import type { Context } from '../core/context.js';
import { startLiveLine } from '../output/live-line.js';
import type { KeyedPush } from './key/keyed-push.js';
import type { WaitSummary } from './report/summary.js';
import { RowStore } from './wait/row-store.js';
import { waitUntilSettled, type SettledState } from './wait/settled-wait.js';
import { writePushedRows, type RowsOutput } from './wait/write-rows.js';

export interface SettledPassOptions {
  keyed: KeyedPush;
  /** the keys of the records pushed, in input order */
  keys: string[];
  /** set when every key was sent by this run, which began then with the table at that rowCount */
  recent?: { since: number; rowsBefore: number };
  timeoutMs: number;
  intervalMs: number;
  progress: boolean;
  output?: RowsOutput;
}

/** --wait settled: the pushed rows waited for until their action cells are done, then written in input order (-o). */
export async function settledPass(ctx: Context, options: SettledPassOptions): Promise<WaitSummary> {
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
