import type { RateLimiter } from '../../http/rate-limiter.js';
import { withRetries } from '../../http/retry.js';
import type { RetryPolicy } from '../../http/retry-policy.js';
import type { SentRequest } from '../key/intake-window.js';
import { narrowBatch, splitBatch, type Batch } from '../plan/batch.js';
import type { BatchJournal } from './batch-journal.js';
import type { BatchPoster, Posted } from './batch-poster.js';
import type { PostOutcome } from './classify.js';
import type { KeyHandOff } from './key-hand-off.js';
import { gaveUpDetail, meaningOf } from './outcome-meaning.js';
import type { SendEvent } from './send-event.js';
import type { RunStops } from './stop-reason.js';

export interface BatchDeliveryOptions {
  poster: Pick<BatchPoster, 'post' | 'attempted'>;
  limiter: Pick<RateLimiter, 'acquireSlot' | 'pause'>;
  /** --max-retries and the waits between tries (a POST is not idempotent: only 429s and refused connections are retried) */
  retry: Omit<RetryPolicy, 'idempotent'>;
  stops: RunStops;
  journal: BatchJournal;
  /** called once for every batch (or part) dealt with */
  onOutcome(event: SendEvent): Promise<void> | void;
  /** --key: batches taken in are noted, uncertain ones settled by their keys instead of stopping the run */
  byKey?: Pick<KeyHandOff, 'accepted' | 'uncertain'>;
}

/**
 * One batch from the input to its outcome: the records the table holds left out (--skip-existing),
 * posted (again after a 429 or a refused connection), split in halves on a 413, and what the answer
 * means journaled, then counted.
 */
export class BatchDelivery {
  constructor(private readonly options: BatchDeliveryOptions) {}

  /** --skip-existing: the records the table holds are journaled as not to be sent; the rest goes on. */
  async begin(batch: Batch): Promise<void> {
    if (!batch.existing || batch.existing.size === 0) return this.deliver(batch);
    const existing = batch.existing;
    const keep = batch.items.filter((item) => !existing.has(item.record)).map((item) => item.record);
    await this.options.journal(batch, 'narrowed', { keep, why: 'existing' });
    await this.options.onOutcome({ kind: 'existing', batch, records: existing.size });
    const rest = narrowBatch(batch, new Set(keep));
    if (rest) await this.deliver(rest);
  }

  /** Posted until its outcome is known, then concluded; a run that stops meanwhile leaves it pending. */
  private async deliver(batch: Batch): Promise<void> {
    const { stops, poster } = this.options;
    if (stops.halted) return this.options.onOutcome({ kind: 'pending', batch });
    let sent;
    try {
      sent = await withRetries<Posted>({
        limiter: this.options.limiter,
        policy: { ...this.options.retry, idempotent: false },
        signal: stops.signal,
        attempt: () => poster.post(batch),
        outcomeOf: (posted) => (posted.outcome.kind === 'retry' ? posted.outcome.attempt : undefined),
        onAttempt: (report) => poster.attempted(batch, report),
      });
    } catch (error) {
      // the run stopped while this batch waited for a slot or a retry: it was not sent
      if (stops.cutShort(error)) return this.options.onOutcome({ kind: 'pending', batch });
      throw error;
    }
    const { outcome } = sent.result;
    if (outcome.kind === 'retry') {
      stops.stop({
        kind: 'gave-up',
        detail: gaveUpDetail(batch, { detail: outcome.detail, attempts: sent.attempts.length, decision: sent.decision }),
      });
      return this.options.onOutcome({ kind: 'pending', batch });
    }
    return this.conclude(batch, outcome, sent.result.sent);
  }

  /**
   * What the final outcome means for the batch, journaled, then counted. The run hears of it even
   * when the journal cannot record it (a full disk): the summary must tell what really happened.
   */
  private async conclude(batch: Batch, outcome: Exclude<PostOutcome, { kind: 'retry' }>, sent: SentRequest): Promise<void> {
    if (outcome.kind === 'too-large') return this.splitOrReject(batch, outcome);
    const { state, event, stop } = meaningOf(batch, outcome);
    const { byKey } = this.options;
    try {
      await this.options.journal(batch, state, { status: outcome.status, ...('detail' in outcome ? { reason: outcome.detail } : {}) });
    } finally {
      if (state === 'accepted') byKey?.accepted(batch, sent);
      // --key: settled once nothing is in flight, instead of stopping the run
      if (state === 'uncertain' && byKey) byKey.uncertain(batch, sent);
      else {
        if (stop) this.options.stops.stop(stop);
        await this.options.onOutcome(event);
      }
    }
  }

  /** A 413 took nothing in: the halves are sent in its place; a single object that is too large is rejected. */
  private async splitOrReject(batch: Batch, outcome: Extract<PostOutcome, { kind: 'too-large' }>): Promise<void> {
    if (batch.items.length === 1) {
      const reason = `the object alone is too large for the webhook (${outcome.detail})`;
      await this.options.journal(batch, 'rejected', { status: outcome.status, reason });
      return this.options.onOutcome({ kind: 'rejected', batch, reason });
    }
    await this.options.journal(batch, 'split', { status: outcome.status, reason: outcome.detail });
    for (const half of splitBatch(batch)) await this.deliver(half);
  }
}
