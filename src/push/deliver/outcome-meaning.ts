import { MAX_RETRY_AFTER_MS, type RetryDecision } from '../../http/retry-policy.js';
import type { BatchState } from '../journal/journal-entry.js';
import { batchId, type Batch } from '../plan/batch.js';
import type { PostOutcome } from './classify.js';
import type { SendEvent } from './send-event.js';
import type { StopReason } from './stop-reason.js';

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
        event: { kind: 'pending', batch },
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
