import type { AttemptOutcome, RetryReason } from './retry-policy.js';
import { describeNetworkCode } from './errors.js';

export interface RequestLogLine {
  method: string;
  /** Path and query as sent. */
  path: string;
  outcome: AttemptOutcome;
  ms: number;
  /** Time spent waiting for a pacing slot before this attempt. */
  pacedMs: number;
  retry?: { number: number; max: number; waitMs: number; reason: RetryReason };
}

/** One --verbose line: `GET /v1/tables?workspaceId=ws_1 200 12ms`, plus waits and the retry plan. */
export function formatRequestLine(line: RequestLogLine): string {
  const result =
    line.outcome.kind === 'status'
      ? String(line.outcome.status)
      : `${describeNetworkCode(line.outcome.code)}${line.outcome.code ? ` (${line.outcome.code})` : ''}`;
  let text = `${line.method} ${shortenCursor(line.path)} ${result} ${Math.round(line.ms)}ms`;
  if (line.pacedMs > 0) text += ` (paced ${Math.round(line.pacedMs)}ms)`;
  if (line.retry) {
    const { number, max, waitMs, reason } = line.retry;
    const why = reason === 'rate-limited' ? 'rate limited' : reason === 'server-error' ? 'server error' : 'network';
    text += `; retry ${number}/${max} in ${Math.round(waitMs)}ms (${why})`;
  }
  return text;
}

/** Cursors run to 500 characters; a log line shows the first few. */
function shortenCursor(path: string): string {
  return path.replace(/([?&]cursor=)([^&]{12})[^&]+/, '$1$2…');
}
