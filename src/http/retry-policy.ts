import { DEFAULT_RETRY_AFTER_SECONDS } from '../service/index.js';
import { PROXY_AUTH_REQUIRED, PROXY_REFUSED, PROXY_TUNNEL_CLOSED, PROXY_UNAVAILABLE } from './proxy.js';
import { RESPONSE_DEADLINE } from './transport.js';

// The retry *decision*, pure so it can be table-tested; retry.ts owns the one mechanism.

/** What one attempt ended with: an HTTP status (with a 429's `retry-after`), or a transport failure's code. */
export type AttemptOutcome = { kind: 'status'; status: number; retryAfterMs?: number } | { kind: 'network'; code: string | undefined };

export type RetryReason = 'rate-limited' | 'server-error' | 'network';

export type RetryDecision =
  | { retry: true; reason: RetryReason; waitMs: number }
  /** final: no retry can mend it; exhausted: --max-retries used up; wait-too-long: `retry-after` past the cap */
  | { retry: false; why: 'final' | 'exhausted' | 'wait-too-long'; reason?: RetryReason; askedMs?: number };

export interface RetryPolicy {
  maxRetries: number;
  /** Reads are; a webhook POST is not (a 5xx or a broken connection may have added rows). */
  idempotent: boolean;
  /** Every wait divided by it (a ServiceTimings's retryScale: TDS_RATE_SCALE, so tests and the demo run faster). */
  rateScale?: number;
  /** In [0, 1), for the backoff's jitter. */
  random?: () => number;
  /** The service is on this machine: a refused connection means nothing listens there, and no retry mends that. */
  loopback?: boolean;
}

export const RETRY_STATUSES: readonly number[] = [429, 500, 502, 503, 504];

/** Transport failures worth another try: the connection broke, was refused, or stalled. */
export const RETRY_NETWORK_CODES: readonly string[] = [
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'ENETUNREACH',
  'ENETDOWN',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  RESPONSE_DEADLINE,
  // a tunnel the proxy closed or could not open counts as an attempt, and is worth another, after backoff
  PROXY_TUNNEL_CLOSED,
  PROXY_UNAVAILABLE,
];

/**
 * Failures before any byte of the request reached the service: no connection, or no tunnel (a proxy's
 * 407 or 403 too, which no retry mends: they are not in RETRY_NETWORK_CODES).
 */
const NOT_SENT_CODES: readonly string[] = [
  'ECONNREFUSED',
  'UND_ERR_CONNECT_TIMEOUT',
  'EAI_AGAIN',
  PROXY_TUNNEL_CLOSED,
  PROXY_UNAVAILABLE,
  PROXY_AUTH_REQUIRED,
  PROXY_REFUSED,
];

/** The request never left (refused, no connection in time, no address): sending it again cannot add rows twice. */
export function wasNotSent(code: string | undefined): boolean {
  return NOT_SENT_CODES.includes(code ?? '');
}

/** Whether an attempt's outcome is of a kind worth another try, and why. */
export function retryReason(outcome: AttemptOutcome, idempotent: boolean): RetryReason | undefined {
  if (outcome.kind === 'status') {
    if (outcome.status === 429) return 'rate-limited';
    return idempotent && RETRY_STATUSES.includes(outcome.status) ? 'server-error' : undefined;
  }
  // a request whose body may have been sent is tried again only when it is idempotent
  const retryable = RETRY_NETWORK_CODES.includes(outcome.code ?? '') && (idempotent || wasNotSent(outcome.code));
  return retryable ? 'network' : undefined;
}

/**
 * The longest `retry-after` tds waits. The service counts its limits per minute, so an honest answer
 * asks for a minute at most; a longer one is a fault (or hostile), and tds gives up instead of
 * hanging for days.
 */
export const MAX_RETRY_AFTER_MS = 300_000;

/** Whether to try again after `retriesSoFar` retries, and how long to wait first. */
export function decideRetry(outcome: AttemptOutcome, retriesSoFar: number, policy: RetryPolicy): RetryDecision {
  if (policy.loopback && outcome.kind === 'network' && outcome.code === 'ECONNREFUSED') return { retry: false, why: 'final' };
  const reason = retryReason(outcome, policy.idempotent);
  if (!reason) return { retry: false, why: 'final' };
  if (retriesSoFar >= policy.maxRetries) return { retry: false, why: 'exhausted', reason };
  const scale = policy.rateScale ?? 1;
  if (reason === 'rate-limited') {
    const asked = outcome.kind === 'status' ? outcome.retryAfterMs : undefined;
    if (asked !== undefined && asked > MAX_RETRY_AFTER_MS) return { retry: false, why: 'wait-too-long', reason, askedMs: asked };
    return { retry: true, reason, waitMs: (asked ?? DEFAULT_RETRY_AFTER_SECONDS * 1000) / scale };
  }
  return { retry: true, reason, waitMs: backoffMs(retriesSoFar, (policy.random ?? Math.random)()) / scale };
}

export interface BackoffOptions {
  baseMs?: number;
  capMs?: number;
}

export const BACKOFF_BASE_MS = 500;
export const BACKOFF_CAP_MS = 20_000;

/**
 * Capped exponential backoff with full jitter: a uniform wait in [0, min(cap, base × 2^attempt)).
 * `attempt` counts from 0 (the wait before the first retry); `random` is in [0, 1).
 */
export function backoffMs(attempt: number, random: number, options: BackoffOptions = {}): number {
  const base = options.baseMs ?? BACKOFF_BASE_MS;
  const cap = options.capMs ?? BACKOFF_CAP_MS;
  const ceiling = Math.min(cap, base * 2 ** Math.min(attempt, 30));
  return Math.floor(Math.min(Math.max(random, 0), 1) * ceiling);
}

/**
 * Milliseconds to wait from a `retry-after` header: delay-seconds (decimals accepted) or an HTTP date.
 * Undefined when absent or unreadable, so the caller applies its default.
 */
export function parseRetryAfter(header: string | string[] | undefined, now: number = Date.now()): number | undefined {
  const value = (Array.isArray(header) ? header[0] : header)?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.round(Number(value) * 1000);
  const date = Date.parse(value);
  if (Number.isNaN(date) || !/[a-z]/i.test(value)) return undefined;
  return Math.max(0, date - now);
}
