// The retry *decision*, kept pure so it can be table-tested; client.ts owns the mechanism.

/** What one attempt ended with: an HTTP status, or a transport failure with its error code. */
export type AttemptOutcome = { kind: 'status'; status: number } | { kind: 'network'; code: string | undefined };

export type RetryReason = 'rate-limited' | 'server-error' | 'network';

export type RetryDecision = { retry: false } | { retry: true; reason: RetryReason };

export interface RetryInput {
  outcome: AttemptOutcome;
  /** Retries already made for this request (0 after the first attempt). */
  retriesSoFar: number;
  maxRetries: number;
  /** Reads are; a webhook POST is not (a 5xx or a broken connection may have added rows). */
  idempotent: boolean;
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
];

/** Failures that happen before any byte of the request reached the service: safe even when not idempotent. */
const NOT_SENT_CODES: readonly string[] = ['ECONNREFUSED', 'UND_ERR_CONNECT_TIMEOUT', 'EAI_AGAIN'];

export function shouldRetry(input: RetryInput): RetryDecision {
  if (input.retriesSoFar >= input.maxRetries) return { retry: false };
  const { outcome } = input;
  if (outcome.kind === 'status') {
    if (outcome.status === 429) return { retry: true, reason: 'rate-limited' };
    if (input.idempotent && RETRY_STATUSES.includes(outcome.status)) return { retry: true, reason: 'server-error' };
    return { retry: false };
  }
  const code = outcome.code ?? '';
  const retryable = input.idempotent ? RETRY_NETWORK_CODES.includes(code) : NOT_SENT_CODES.includes(code);
  return retryable ? { retry: true, reason: 'network' } : { retry: false };
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
