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
 * for the one before it. Two windows' worth of requests are played out; after that the pace is
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
