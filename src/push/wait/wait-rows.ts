import { setTimeout as sleep } from 'node:timers/promises';
import type { ApiClient } from '../../http/client.js';
import { resolveTable } from '../../http/resolve-table.js';

// push/wait/: --wait. Public surface: waitForRows (this file), the settled wait (settled-wait.ts) and
// writeRows (-o, write-rows.ts).

export interface WaitOptions {
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
}

export interface WaitResult {
  table: string;
  before: number;
  after: number;
  expected: number;
  appeared: number;
  seconds: number;
  complete: boolean;
}

/** Polls the table's rowCount (webhook intake is asynchronous) until the new rows show or time runs out. */
export async function waitForRows(options: WaitOptions): Promise<WaitResult> {
  const started = performance.now();
  let after = options.before;
  const result = (): WaitResult => ({
    table: options.tableId,
    before: options.before,
    after,
    expected: options.expected,
    appeared: after - options.before,
    seconds: round((performance.now() - started) / 1000),
    complete: after - options.before >= options.expected,
  });
  while (after - options.before < options.expected) {
    const left = options.timeoutMs - (performance.now() - started);
    if (left <= 0) break;
    await sleep(Math.min(options.intervalMs, left), undefined, { signal: options.signal }).catch(() => {
      throw options.signal.reason;
    });
    after = (await resolveTable(options.client, options.tableId)).rowCount;
    options.onPoll?.(after - options.before);
  }
  return result();
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
