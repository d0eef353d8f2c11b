import { describeNetworkCode, serviceMessage } from '../../http/errors.js';
import { parseLenient } from '../../http/json-body.js';
import { parseRetryAfter } from '../../http/retry-after.js';
import { wasNotSent, type AttemptOutcome } from '../../http/retry-policy.js';
import type { WireResult } from './webhook-client.js';

/** What a webhook POST's result means for its batch (service-api.md 4.7 and 7). */
export type PostOutcome =
  /** any 2xx: the objects were taken in */
  | { kind: 'accepted'; status: number; success?: boolean; message?: string }
  /** 429, or a connection that failed before anything was sent: nothing was taken in; send again */
  | { kind: 'retry'; attempt: AttemptOutcome; status?: number; detail: string }
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
    if (wasNotSent(result.code)) return { kind: 'retry', attempt: attemptOutcome(result), detail };
    if (result.code === 'ENOTFOUND') return { kind: 'stop', detail };
    return { kind: 'uncertain', detail };
  }
  const { status } = result;
  const detail = describeStatus(result);
  if (status >= 200 && status < 300) {
    const body = parseLenient(result.text) as { success?: unknown } | undefined;
    return {
      kind: 'accepted',
      status,
      success: typeof body?.success === 'boolean' ? body.success : undefined,
      message: serviceMessage(body),
    };
  }
  if (status === 429) return { kind: 'retry', attempt: attemptOutcome(result), status, detail };
  if (status === 413) return { kind: 'too-large', status, detail };
  if (status === 400) return { kind: 'rejected', status, detail };
  if (status >= 500) return { kind: 'uncertain', status, detail };
  return { kind: 'stop', status, detail };
}

/** A request's result as the retry policy judges it: its status (with a 429's retry-after), or its failure code. */
export function attemptOutcome(result: WireResult): AttemptOutcome {
  if (result.kind === 'failure') return { kind: 'network', code: result.code };
  const retryAfterMs = result.status === 429 ? parseRetryAfter(result.headers['retry-after']) : undefined;
  return { kind: 'status', status: result.status, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
}

/** `HTTP 500: <service message>` */
export function describeStatus(result: Extract<WireResult, { kind: 'response' }>): string {
  const message = serviceMessage(parseLenient(result.text));
  return `HTTP ${result.status}${message ? `: ${message}` : ''}`;
}

export function describeFailure(result: Extract<WireResult, { kind: 'failure' }>): string {
  return `${describeNetworkCode(result.code)}${result.code ? ` (${result.code})` : ''}`;
}

/** `HTTP 404` or `connection reset (ECONNRESET)`. */
export function describeResult(result: WireResult): string {
  return result.kind === 'response' ? describeStatus(result) : describeFailure(result);
}
