import {
  describeNetworkCode,
  parseLenient,
  serviceMessage,
  MAX_RETRY_AFTER_MS,
  parseRetryAfter,
  wasNotSent,
  type AttemptOutcome,
  type RetryDecision,
} from '../../http/index.js';
import type { BatchState } from '../journal/journal-format.js';
import { batchId, type Batch } from '../plan/batch.js';
import type { WireResult } from './webhook-client.js';

// What a webhook answer means: for the batch (PostOutcome), and, once final, for the journal (its
// state), the count (SendEvent) and the run (StopReason).

/** What a webhook POST's result means for its batch (docs/service-api.md 4.7 and 7). */
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
    // no HTTP byte left before the host was not found or its certificate refused
    if (result.code === 'ENOTFOUND' || result.certificate) return { kind: 'stop', detail };
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
  if (result.certificate) return result.certificate;
  return `${describeNetworkCode(result.code)}${result.code ? ` (${result.code})` : ''}`;
}

/** `HTTP 404` or `connection reset (ECONNRESET)`. */
export function describeResult(result: WireResult): string {
  return result.kind === 'response' ? describeStatus(result) : describeFailure(result);
}

/** What became of a batch (or part) a sending run dealt with. */
export type SendEvent =
  | { kind: 'accepted'; batch: Batch; status: number; success?: boolean; message?: string }
  /** 400, or 413 for a single object: not taken in because of the records */
  | { kind: 'rejected'; batch: Batch; reason: string }
  | { kind: 'uncertain'; batch: Batch; reason: string }
  /** due, but not sent because the run is stopping */
  | { kind: 'unsent'; batch: Batch }
  /** --skip-existing: records of the batch whose keys the table held (not sent) */
  | { kind: 'existing'; batch: Batch; records: number }
  /**
   * --key: records whose keys were found in the table (taken in): of an uncertain request, or (`earlier`)
   * of a batch of a changed input that an earlier run had sent
   */
  | { kind: 'reconciled'; batch: Batch; records: number; earlier?: true };

/** Why a sending run stopped starting batches. */
export type StopReason =
  | { kind: 'uncertain'; detail: string }
  | { kind: 'interrupted' }
  /** 429s or refused connections beyond --max-retries */
  | { kind: 'gave-up'; detail: string }
  /** an answer that takes nothing in and will not change on retry (404, 401, a redirect…) */
  | { kind: 'refused'; status?: number; detail: string }
  /** the journal could not be written, or the input failed while streaming */
  | { kind: 'failed'; error: unknown }
  /** the webhook's budget of submissions (the `webhook-budget` setting) is spent: the batches in flight finish */
  | { kind: 'budget'; budget: number; left: number };

/** A final answer to a batch's POST that is not a 413 (413s split the batch). */
export type FinalOutcome = Exclude<PostOutcome, { kind: 'retry' | 'too-large' }>;

/** What a final answer means for its batch: the state journaled, the event counted, and whether the run stops. */
export interface Meaning {
  state: BatchState;
  event: SendEvent;
  stop?: StopReason;
}

export function meaningOf(batch: Batch, outcome: FinalOutcome): Meaning {
  switch (outcome.kind) {
    case 'accepted':
      return {
        state: 'accepted',
        event: { kind: 'accepted', batch, status: outcome.status, success: outcome.success, message: outcome.message },
      };
    case 'rejected':
      return { state: 'rejected', event: { kind: 'rejected', batch, reason: outcome.detail } };
    case 'uncertain':
      return {
        state: 'uncertain',
        event: { kind: 'uncertain', batch, reason: outcome.detail },
        stop: { kind: 'uncertain', detail: outcome.detail },
      };
    case 'stop':
      return {
        state: 'unsent',
        event: { kind: 'unsent', batch },
        stop: { kind: 'refused', status: outcome.status, detail: outcome.detail },
      };
  }
}

/** Why the retries of a batch ended without an answer that takes it in or refuses it. */
export function gaveUpDetail(
  batch: Batch,
  ended: { detail: string; attempts: number; decision?: Extract<RetryDecision, { retry: false }> },
): string {
  const why =
    ended.decision?.why === 'wait-too-long'
      ? `the webhook asked to wait ${Math.round((ended.decision.askedMs ?? 0) / 1000)} s (${ended.detail}); tds waits at most ${MAX_RETRY_AFTER_MS / 1000} s`
      : `${ended.detail} after ${ended.attempts} attempts`;
  return `batch ${batchId(batch)}: ${why}`;
}
