import { describeNetworkCode, serviceMessage } from '../http/errors.js';
import { parseRetryAfter } from '../http/retry-after.js';
import { shouldRetry } from '../http/retry-policy.js';
import type { WireResult } from './webhook-client.js';

/** What a webhook POST's result means for its batch (service-api.md 4.7 and 7). */
export type PostOutcome =
  /** any 2xx: the objects were taken in */
  | { kind: 'accepted'; status: number; success?: boolean; message?: string }
  /** 429, or a connection that failed before anything was sent: nothing was taken in; send again */
  | { kind: 'retry'; why: 'rate-limited' | 'not-sent'; status?: number; retryAfterMs?: number; detail: string }
  /** 413: nothing was taken in; send the halves */
  | { kind: 'too-large'; status: number; detail: string }
  /** 400: nothing was taken in; the records are rejected with the service's message */
  | { kind: 'rejected'; status: number; detail: string }
  /** 5xx, a timeout, or a connection broken once the request may have arrived: rows may have been added */
  | { kind: 'uncertain'; status?: number; detail: string }
  /** nothing was taken in, and sending again would not help (404, 401, a redirect, an unknown host…) */
  | { kind: 'stop'; status?: number; detail: string };

export function classifyPost(result: WireResult): PostOutcome {
  if (result.kind === 'failure') {
    const detail = describeFailure(result);
    if (notSent(result.code)) return { kind: 'retry', why: 'not-sent', detail };
    if (result.code === 'ENOTFOUND') return { kind: 'stop', detail };
    return { kind: 'uncertain', detail };
  }
  const { status } = result;
  const detail = describeStatus(result);
  if (status >= 200 && status < 300) {
    const body = parseLoosely(result.text) as { success?: unknown } | undefined;
    return {
      kind: 'accepted',
      status,
      success: typeof body?.success === 'boolean' ? body.success : undefined,
      message: serviceMessage(body),
    };
  }
  if (status === 429)
    return { kind: 'retry', why: 'rate-limited', status, retryAfterMs: parseRetryAfter(result.headers['retry-after']), detail };
  if (status === 413) return { kind: 'too-large', status, detail };
  if (status === 400) return { kind: 'rejected', status, detail };
  if (status >= 500) return { kind: 'uncertain', status, detail };
  return { kind: 'stop', status, detail };
}

/** What a HEAD's result means: the webhook exists, does not, or the check should be tried again. */
export type HeadOutcome =
  | { kind: 'exists'; status: number }
  | { kind: 'missing'; status: number; detail: string }
  | { kind: 'retry'; why: 'rate-limited' | 'server-error' | 'network'; retryAfterMs?: number; detail: string }
  | { kind: 'failed'; status?: number; detail: string };

export function classifyHead(result: WireResult): HeadOutcome {
  if (result.kind === 'response' && result.status >= 200 && result.status < 300) return { kind: 'exists', status: result.status };
  if (result.kind === 'response' && result.status === 404) return { kind: 'missing', status: 404, detail: describeStatus(result) };
  const outcome =
    result.kind === 'response' ? { kind: 'status' as const, status: result.status } : { kind: 'network' as const, code: result.code };
  const decision = shouldRetry({ outcome, retriesSoFar: 0, maxRetries: 1, idempotent: true });
  const detail = result.kind === 'response' ? describeStatus(result) : describeFailure(result);
  if (decision.retry) {
    const retryAfterMs = result.kind === 'response' ? parseRetryAfter(result.headers['retry-after']) : undefined;
    return { kind: 'retry', why: decision.reason, retryAfterMs, detail };
  }
  return { kind: 'failed', status: result.kind === 'response' ? result.status : undefined, detail };
}

/** ECONNREFUSED and the like: the request never left, so sending it again cannot add rows twice. */
function notSent(code: string | undefined): boolean {
  return shouldRetry({ outcome: { kind: 'network', code }, retriesSoFar: 0, maxRetries: 1, idempotent: false }).retry;
}

/** `HTTP 500: <service message>` */
export function describeStatus(result: Extract<WireResult, { kind: 'response' }>): string {
  const message = serviceMessage(parseLoosely(result.text));
  return `HTTP ${result.status}${message ? `: ${message}` : ''}`;
}

export function describeFailure(result: Extract<WireResult, { kind: 'failure' }>): string {
  return `${describeNetworkCode(result.code)}${result.code ? ` (${result.code})` : ''}`;
}

function parseLoosely(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
