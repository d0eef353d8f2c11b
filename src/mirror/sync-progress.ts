import type { Context } from '../core/context.js';
import { startLiveLine, type LiveLine } from '../output/live-line.js';
import { RATE_LIMITS, type Table } from '../spec/index.js';
import type { PassProgress } from './read-pages.js';

/** The progress line of a sync on a terminal: tables done, rows, rate, and an ETA that counts the row-read limit. */
export interface SyncProgress extends PassProgress {
  table(table: Table): void;
  /** Prints a message above the line. */
  note(text: string): void;
  stop(): void;
}

export async function startSyncProgress(ctx: Context, tables: readonly Table[]): Promise<SyncProgress | undefined> {
  if (!ctx.io.stderrIsTTY || tables.length === 0) return undefined;
  const rateScale = Number(ctx.io.env.TDS_RATE_SCALE ?? 1) || 1;
  const started = Date.now();
  let done = -1;
  let current: Table | undefined;
  let rows = 0;
  let tableRows = 0;
  const render = (): string => {
    const seconds = (Date.now() - started) / 1000;
    const rate = seconds > 0 ? Math.round(rows / seconds) : 0;
    // every table is read at most at the row-read limit: 100 rows a request, 60 requests a minute
    const perMinute = (RATE_LIMITS.rows.requests * 100 * rateScale) / (RATE_LIMITS.rows.perMs / 60_000);
    const left = Math.max(0, (current?.rowCount ?? 0) - tableRows);
    const eta = left > 0 ? ` · at most ${formatMinutes(left / perMinute)} left on this table` : '';
    return `tables ${Math.max(0, done)}/${tables.length} · ${current?.name ?? ''}: ${tableRows.toLocaleString('en-US')} rows · ${rate.toLocaleString('en-US')} rows/s${eta}`;
  };
  const line: LiveLine = await startLiveLine(ctx.io, render, 1000);
  return {
    table(table) {
      done += 1;
      current = table;
      tableRows = 0;
      line.refresh();
    },
    page(total) {
      rows += total - tableRows;
      tableRows = total;
      line.refresh();
    },
    note: (text) => line.note(text),
    stop: () => line.stop(),
  };
}

function formatMinutes(minutes: number): string {
  if (minutes < 1) return `${Math.ceil(minutes * 60)}s`;
  if (minutes < 60) return `${Math.round(minutes)}m`;
  return `${Math.floor(minutes / 60)}h ${Math.round(minutes % 60)}m`;
}
