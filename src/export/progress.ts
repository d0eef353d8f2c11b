import type { Context } from '../core/index.js';
import { startLiveLine } from '../output/index.js';

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

export interface ProgressSnapshot {
  rows: number;
  /** Rows written before this run (a resumed export): left out of the rate. */
  startRows?: number;
  elapsedMs: number;
  /** Rows the export will write in all: the table's rowCount (capped by --limit) for unfiltered exports. */
  total?: number;
  eta?: Omit<EtaInput, 'remainingRows'>;
}

const count = (n: number): string => n.toLocaleString('en-US');

/** `1,200 rows · 95 rows/s · 48% of 2,500 · about 12s left` (without total: just rows and rate). */
export function progressText(snapshot: ProgressSnapshot): string {
  const { rows, elapsedMs, total } = snapshot;
  const rate = elapsedMs > 0 ? Math.round(((rows - (snapshot.startRows ?? 0)) * 1000) / elapsedMs) : 0;
  const parts = [`${count(rows)} rows`, `${count(rate)} rows/s`];
  if (total !== undefined && total > 0) {
    parts.push(`${Math.min(100, Math.floor((rows * 100) / total))}% of ${count(total)}`);
    if (snapshot.eta && rows < total) parts.push(`about ${formatDuration(etaMs({ ...snapshot.eta, remainingRows: total - rows }))} left`);
  }
  return parts.join(' · ');
}

// How long the rest of an export takes when row reads are limited to N requests per window
// (60 a minute): pure, so it can be table-tested.

export interface EtaInput {
  remainingRows: number;
  pageSize: number;
  now: number;
  /** When the recent row requests were made, oldest first (only the last `window.requests` matter). */
  recentRequests: readonly number[];
  /** Mean time a page has taken so far, fetch and write. */
  msPerPage: number;
  window: { requests: number; perMs: number };
}

/**
 * Milliseconds until the last page is written: each request waits for its turn in the window and
 * for the one before it. Two windows' worth of requests are played out; after that the rate is
 * steady (one window per `window.requests`, or the page time if slower), so it is multiplied out.
 */
export function etaMs(input: EtaInput): number {
  const { window, msPerPage, now } = input;
  const total = Math.ceil(Math.max(0, input.remainingRows) / Math.max(1, input.pageSize));
  if (total === 0) return 0;
  const ring = input.recentRequests.slice(-window.requests);
  const played = Math.min(total, window.requests * 2);
  let start = now;
  let last = now;
  for (let i = 0; i < played; i += 1) {
    const turn = ring.length >= window.requests ? ring[ring.length - window.requests]! + window.perMs : -Infinity;
    last = Math.max(start, turn);
    ring.push(last);
    start = last + msPerPage;
  }
  const steady = (total - played) * Math.max(window.perMs / window.requests, msPerPage);
  return last + steady + msPerPage - now;
}

/** `1h 2m`, `3m 5s`, `42s`. */
export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${seconds % 60}s`;
  return `${Math.floor(minutes / 60)}h ${minutes % 60}m`;
}
