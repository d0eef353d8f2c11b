import type { Context } from '../core/context.js';
import { startLiveLine } from '../output/live-line.js';
import { progressText } from './progress-text.js';

export interface ProgressOptions {
  /** Rows expected in all (unfiltered exports), for the percentage and ETA. */
  total?: number;
  /** Rows a resumed export had already written (not counted in the rate). */
  startRows: number;
  pageSize: number;
  /** The row-read limit, already divided by the client's rate scale. */
  window: { requests: number; perMs: number };
}

/** Rows written, rows/s, percentage and ETA on stderr, only when stderr is a terminal (TDS_FORCE_TTY=1 forces it). */
export interface ExportProgress {
  /** After each page: rows written so far. */
  page(rows: number): void;
  /** Final line: the export is complete. */
  succeed(text: string): void;
  /** Removes the spinner (before an error or warning is printed). */
  stop(): void;
}

/** A fast export writes hundreds of pages a second; the text changes at most this often. */
const RENDER_EVERY_MS = 100;

/** Rows written, rows/s, percentage and ETA, redrawn at most every RENDER_EVERY_MS (only on a terminal). */
export async function createProgress(ctx: Context, options: ProgressOptions): Promise<ExportProgress> {
  const started = Date.now();
  const requests: number[] = [];
  let rows = options.startRows;
  const render = (): string => {
    const now = Date.now();
    const elapsedMs = now - started;
    return progressText({
      rows,
      startRows: options.startRows,
      elapsedMs,
      ...(options.total !== undefined ? { total: options.total } : {}),
      eta: {
        now,
        pageSize: options.pageSize,
        recentRequests: requests,
        msPerPage: typicalGap(requests, elapsedMs),
        window: options.window,
      },
    });
  };
  const line = await startLiveLine(ctx.io, render, 1000);
  let rendered = 0;
  return {
    page(written) {
      rows = written;
      requests.push(Date.now());
      if (requests.length > options.window.requests + 1) requests.shift();
      if (Date.now() - rendered < RENDER_EVERY_MS) return;
      rendered = Date.now();
      line.refresh();
    },
    succeed: (text) => line.succeed(text),
    stop: () => line.stop(),
  };
}

/** The median time between recent pages: waits for the rate limit are not counted as page time (the ETA adds them). */
function typicalGap(times: readonly number[], elapsedMs: number): number {
  if (times.length < 2) return times.length === 1 ? elapsedMs : 0;
  const gaps = times
    .slice(1)
    .map((time, i) => time - times[i]!)
    .sort((a, b) => a - b);
  return gaps[Math.floor(gaps.length / 2)]!;
}
