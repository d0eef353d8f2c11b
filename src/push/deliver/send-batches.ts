import type { RateLimiter } from '../../http/rate-limiter.js';
import { withRetries, type AttemptReport } from '../../http/retry.js';
import { MAX_RETRY_AFTER_MS, type RetryDecision } from '../../http/retry-policy.js';
import type { SentRequest } from '../key/intake-window.js';
import type { KeyReconciler } from '../key/reconcile.js';
import { entryOf, type BatchState, type JournalEntry } from '../journal/journal-entry.js';
import { batchId, narrowBatch, splitBatch, type Batch } from '../plan/batch.js';
import type { SendEvent } from './send-event.js';
import { ReconcileQueue } from './reconcile-queue.js';

export type { SendEvent } from './send-event.js';
import { classifyPost, type PostOutcome } from './classify.js';
import type { WireResult } from './webhook-client.js';

export interface SendOptions {
  concurrency: number;
  /** retries of one batch after a 429 or a refused connection before giving up */
  maxRetries: number;
  /** TDS_RATE_SCALE: retry-after and backoff waits are divided by it */
  rateScale: number;
  limiter: Pick<RateLimiter, 'acquireSlot' | 'pause'>;
  post(body: Buffer): Promise<WireResult>;
  journal: { append(entry: JournalEntry): Promise<void> };
  /** ctx.signal (SIGINT): start no more batches; the ones in flight finish and are journaled */
  interrupt: AbortSignal;
  /** how the webhook is shown in log lines */
  shown: string;
  /** keeps the webhook URL out of service messages before they are journaled, logged or shown */
  redact(text: string): string;
  log?: (line: string) => void;
  random?: () => number;
  /** Called once for every batch (or part) this run has dealt with, before its slot is freed. */
  onOutcome(event: SendEvent): Promise<void> | void;
  /** --key: uncertain batches are settled by looking their keys up, and the run goes on */
  reconciler?: Pick<KeyReconciler, 'found' | 'noteAccepted' | 'checkDue' | 'checkKeysShow' | 'rowsVisible'>;
  /** the request timeout: a request cut off while sending may have reached the webhook until then */
  timeoutMs?: number;
}

export type StopReason =
  | { kind: 'uncertain'; detail: string }
  | { kind: 'interrupted' }
  /** 429s or refused connections beyond --max-retries */
  | { kind: 'gave-up'; detail: string }
  /** an answer that takes nothing in and will not change on retry (404, 401, a redirect…) */
  | { kind: 'refused'; status?: number; detail: string }
  /** the journal could not be written, or the input failed while streaming */
  | { kind: 'failed'; error: unknown };

/** One POST of a batch, when it left and ended, and what it means. */
interface Posted {
  wire: WireResult;
  outcome: PostOutcome;
  sent: SentRequest;
}

/**
 * Sends batches with at most `concurrency` in flight, each through the rate limiter, journaled just
 * before its request leaves and again once its outcome is known. Stops starting batches at the first
 * uncertain outcome (with --key: settles it by its keys and goes on), give-up or interrupt; batches
 * in flight always finish and are journaled. Batches are pulled from the input only when a sender is free.
 */
export class BatchSender {
  /** Requests on the wire now (for the progress line). */
  inFlight = 0;
  private readonly halt = new AbortController();
  private readonly stops: StopReason[] = [];
  /** --key: uncertain batches to reconcile by key, and records to send again */
  private readonly queue?: ReconcileQueue;
  /** when this run's last request to the webhook ended (0: none) */
  lastRequestAt = 0;
  private acceptedAny = false;

  constructor(private readonly options: SendOptions) {
    if (options.reconciler) {
      this.queue = new ReconcileQueue({
        reconciler: options.reconciler,
        timeoutMs: options.timeoutMs ?? 0,
        journal: (batch, state, extra) => this.journal(batch, state, extra),
        onOutcome: (event) => options.onOutcome(event),
      });
    }
  }

  async run(batches: AsyncIterable<Batch>): Promise<StopReason[]> {
    const onInterrupt = (): void => this.stop({ kind: 'interrupted' });
    if (this.options.interrupt.aborted) onInterrupt();
    else this.options.interrupt.addEventListener('abort', onInterrupt, { once: true });
    const running = new Set<Promise<void>>();
    const iterator = batches[Symbol.asyncIterator]();
    const start = (batch: Batch): void => {
      const task: Promise<void> = this.begin(batch)
        .catch((error: unknown) => this.stop({ kind: 'failed', error }))
        .finally(() => running.delete(task));
      running.add(task);
    };
    try {
      await this.loop(iterator, running, start);
      // nothing was left uncertain: this run's rows show and their keys can be found (a later run depends on it)
      if (!this.halted && this.acceptedAny) await this.options.reconciler?.rowsVisible(this.lastRequestAt);
    } catch (error) {
      this.stop({ kind: 'failed', error });
    } finally {
      await Promise.all(running);
      this.options.interrupt.removeEventListener('abort', onInterrupt);
      await iterator.return?.(undefined);
      await this.queue?.leftOver();
    }
    return this.stops;
  }

  /**
   * Starts batches while senders are free. With --key, uncertain batches wait until nothing is in
   * flight, then are settled together; the records not found go first in the queue.
   */
  private async loop(iterator: AsyncIterator<Batch>, running: Set<Promise<void>>, start: (batch: Batch) => void): Promise<void> {
    let inputDone = false;
    while (!this.halted) {
      if (this.queue?.waiting) {
        if (running.size > 0) await Promise.race(running);
        else await this.queue.reconcile(this.lastRequestAt);
        continue;
      }
      if (this.options.reconciler?.checkDue) await this.options.reconciler.checkKeysShow();
      if (running.size >= this.options.concurrency) {
        await Promise.race(running);
        continue;
      }
      let batch = this.queue?.next();
      if (!batch && !inputDone) {
        const next = await iterator.next();
        inputDone = next.done === true;
        batch = next.done ? undefined : next.value;
      }
      if (batch?.unsettled && this.queue) this.queue.addEarlier({ ...batch, unsettled: batch.unsettled });
      else if (batch) start(batch);
      else if (running.size > 0) await Promise.race(running);
      else return;
    }
  }

  /** --skip-existing: the records the table holds are journaled as not to be sent; the rest goes on. */
  private async begin(batch: Batch): Promise<void> {
    if (!batch.existing || batch.existing.size === 0) return this.deliver(batch);
    const existing = batch.existing;
    const keep = batch.items.filter((item) => !existing.has(item.record)).map((item) => item.record);
    await this.journal(batch, 'narrowed', { keep, why: 'existing' });
    await this.options.onOutcome({ kind: 'existing', batch, records: existing.size });
    const rest = narrowBatch(batch, new Set(keep));
    if (rest) await this.deliver(rest);
  }

  private get halted(): boolean {
    return this.halt.signal.aborted;
  }

  private stop(reason: StopReason): void {
    this.stops.push(reason);
    this.halt.abort(reason);
  }

  /** One batch: posted (again after a 429 or a refused connection) until its outcome is known, then settled. */
  private async deliver(batch: Batch): Promise<void> {
    if (this.halted) return this.options.onOutcome({ kind: 'pending', batch });
    let sent;
    try {
      sent = await withRetries<Posted>({
        limiter: this.options.limiter,
        policy: { maxRetries: this.options.maxRetries, idempotent: false, rateScale: this.options.rateScale, random: this.options.random },
        signal: this.halt.signal,
        attempt: () => this.post(batch),
        outcomeOf: (posted) => (posted.outcome.kind === 'retry' ? posted.outcome.attempt : undefined),
        onAttempt: (report) => this.afterAttempt(batch, report),
      });
    } catch (error) {
      // The run stopped while this batch waited for a slot or a retry: it was not sent.
      if (this.halted && error === this.halt.signal.reason) return this.options.onOutcome({ kind: 'pending', batch });
      throw error;
    }
    const { outcome } = sent.result;
    if (outcome.kind === 'retry') {
      const why =
        sent.decision?.why === 'wait-too-long'
          ? `the webhook asked to wait ${Math.round((sent.decision.askedMs ?? 0) / 1000)} s (${outcome.detail}); tds waits at most ${MAX_RETRY_AFTER_MS / 1000} s`
          : `${outcome.detail} after ${sent.attempts.length} attempts`;
      this.stop({ kind: 'gave-up', detail: `batch ${batchId(batch)}: ${why}` });
      return this.options.onOutcome({ kind: 'pending', batch });
    }
    return this.conclude(batch, outcome, sent.result.sent);
  }

  /** Journals the batch as being sent (fsynced), then sends it: the journal never misses a request that left. */
  private async post(batch: Batch): Promise<Posted> {
    await this.journal(batch, 'sending');
    this.inFlight += 1;
    const start = Date.now();
    let wire: WireResult;
    try {
      wire = await this.options.post(batch.body);
    } finally {
      this.inFlight -= 1;
      this.lastRequestAt = Date.now();
    }
    const outcome = classifyPost(wire);
    if ('detail' in outcome) outcome.detail = this.options.redact(outcome.detail);
    return { wire, outcome, sent: { start, end: this.lastRequestAt } };
  }

  /** Logs each attempt; one that took nothing in and will be tried again (or given up) is journaled as unsent. */
  private async afterAttempt(batch: Batch, report: AttemptReport<Posted>): Promise<void> {
    const { wire, outcome } = report.result;
    this.options.log?.(this.options.redact(logLine(this.options.shown, batch, wire, outcome, report.decision)));
    if (outcome.kind === 'retry') await this.journal(batch, 'unsent', { status: outcome.status, reason: outcome.detail });
  }

  /**
   * What the final outcome means for the batch, journaled, then counted. The run hears of it even
   * when the journal cannot record it (a full disk): the summary must tell what really happened.
   */
  private async conclude(batch: Batch, outcome: Exclude<PostOutcome, { kind: 'retry' }>, sent: SentRequest): Promise<void> {
    if (outcome.kind === 'too-large') return this.splitOrReject(batch, outcome);
    const { state, event, stop } = this.meaning(batch, outcome);
    const byKey = state === 'uncertain' && this.queue !== undefined;
    try {
      await this.journal(batch, state, { status: outcome.status, ...('detail' in outcome ? { reason: outcome.detail } : {}) });
    } finally {
      if (state === 'accepted') {
        this.acceptedAny = true;
        this.options.reconciler?.noteAccepted(batch, sent);
      }
      // --key: settled once nothing is in flight, instead of stopping the run
      if (byKey) this.queue?.add(batch, sent);
      else {
        if (stop) this.stop(stop);
        await this.options.onOutcome(event);
      }
    }
  }

  private meaning(
    batch: Batch,
    outcome: Exclude<PostOutcome, { kind: 'retry' | 'too-large' }>,
  ): { state: BatchState; event: SendEvent; stop?: StopReason } {
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

  /** A 413 took nothing in: the halves are sent in its place; a single object that is too large is rejected. */
  private async splitOrReject(batch: Batch, outcome: Extract<PostOutcome, { kind: 'too-large' }>): Promise<void> {
    if (batch.items.length === 1) {
      const reason = `the object alone is too large for the webhook (${outcome.detail})`;
      await this.journal(batch, 'rejected', { status: outcome.status, reason });
      return this.options.onOutcome({ kind: 'rejected', batch, reason });
    }
    await this.journal(batch, 'split', { status: outcome.status, reason: outcome.detail });
    for (const half of splitBatch(batch)) await this.deliver(half);
  }

  private journal(batch: Batch, state: BatchState, extra: Parameters<typeof entryOf>[2] = {}): Promise<void> {
    return this.options.journal.append(entryOf(batch, state, extra));
  }
}

function logLine(shown: string, batch: Batch, wire: WireResult, outcome: PostOutcome, decision?: RetryDecision): string {
  const answer = wire.kind === 'response' ? String(wire.status) : 'detail' in outcome ? outcome.detail : 'failed';
  const retry = decision?.retry ? `; retry in ${Math.round(decision.waitMs)}ms` : '';
  const records = `records ${batch.first}–${batch.last} (${batch.items.length} objects, ${batch.bytes} bytes)`;
  return `POST ${shown} ${answer} ${Math.round(wire.ms)}ms: batch ${batchId(batch)}, ${records} → ${outcome.kind}${retry}`;
}
