import type { RetryDecision } from '../../http/retry-policy.js';
import { batchId, type Batch } from '../plan/batch.js';
import type { PostOutcome } from './classify.js';
import type { WireResult } from './webhook-client.js';

/** One attempt to post a batch, as --verbose logs it. */
export interface PostAttempt {
  batch: Batch;
  wire: WireResult;
  outcome: PostOutcome;
  /** undefined for a final answer */
  decision?: RetryDecision;
}

/** The --verbose line of one POST: the answer, its time, the batch and what became of it (the URL as `shown`). */
export function postLogLine(shown: string, { batch, wire, outcome, decision }: PostAttempt): string {
  const answer = wire.kind === 'response' ? String(wire.status) : 'detail' in outcome ? outcome.detail : 'failed';
  const retry = decision?.retry ? `; retry in ${Math.round(decision.waitMs)}ms` : '';
  const records = `records ${batch.first}–${batch.last} (${batch.items.length} objects, ${batch.bytes} bytes)`;
  return `POST ${shown} ${answer} ${Math.round(wire.ms)}ms: batch ${batchId(batch)}, ${records} → ${outcome.kind}${retry}`;
}
