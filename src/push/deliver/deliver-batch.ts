import {
  type RateLimiter,
  type RateLimitSlot,
  withRetries,
  type AttemptReport,
  type RetryDecision,
  type RetryPolicy,
} from '../../http/index.js';
import { entryOf, type BatchState, type JournalEntry } from '../journal/journal-format.js';
import type { SentRequest } from '../key/intake-window.js';
import { batchId, narrowBatch, splitBatch, type Batch } from '../plan/batch.js';
import { classifyPost, gaveUpDetail, meaningOf, type PostOutcome, type SendEvent, type StopReason } from './classify.js';
import type { WireResult } from './webhook-client.js';

export interface BatchDeliveryOptions {
  poster: Pick<BatchPoster, 'post' | 'attempted'>;
  limiter: Pick<RateLimiter, 'acquireSlot' | 'pause'>;
  /** --max-retries and the waits between tries (a POST is not idempotent: only 429s and refused connections are retried) */
  retry: Omit<RetryPolicy, 'idempotent'>;
  stops: RunStops;
  journal: BatchJournal;
  /** called once for every batch (or part) dealt with */
  onOutcome(event: SendEvent): Promise<void> | void;
  /** Hears, for each batch concluded, how long it kept its place in flight beyond its round trip (journaling, counting). */
  onOverhead?(ms: number): void;
  /** --key: batches taken in are noted, uncertain ones reconciled by their keys instead of stopping the run (reconcile-queue.ts) */
  byKey?: {
    accepted(batch: Batch, sent: SentRequest): void;
    uncertain(batch: Batch, sent: SentRequest): void;
    /** a batch that did not leave while an uncertain one waited to be reconciled: to be sent after it */
    heldBack(batch: Batch): void;
  };
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

  /** Posted until its outcome is known, then concluded; a run that stops meanwhile leaves it unsent. */
  private async deliver(batch: Batch): Promise<void> {
    const { stops, poster } = this.options;
    if (stops.halted) return this.options.onOutcome({ kind: 'unsent', batch });
    let sent;
    try {
      sent = await withRetries<Posted>({
        limiter: this.options.limiter,
        policy: { ...this.options.retry, idempotent: false },
        signal: stops.signal,
        attempt: async (slot) => {
          const posted = await poster.post(batch, slot);
          // known now, not once journaled: no batch may leave from this moment (a --key run holds until it is reconciled)
          if (posted.outcome.kind === 'uncertain') {
            if (this.options.byKey) stops.hold();
            else stops.stop({ kind: 'uncertain', detail: posted.outcome.detail });
          }
          return posted;
        },
        outcomeOf: (posted) => (posted.outcome.kind === 'retry' ? posted.outcome.attempt : undefined),
        onAttempt: (report) => poster.attempted(batch, report),
      });
    } catch (error) {
      // the run stopped while this batch waited for a slot or a retry, or was about to leave: it was not sent
      if (stops.cutShort(error)) return this.options.onOutcome({ kind: 'unsent', batch });
      // --key: held back while an uncertain batch is reconciled; it is sent after that
      if (error instanceof HeldBack && this.options.byKey) return this.options.byKey.heldBack(batch);
      throw error;
    }
    const { outcome } = sent.result;
    if (outcome.kind === 'retry') {
      stops.stop({
        kind: 'gave-up',
        detail: gaveUpDetail(batch, { detail: outcome.detail, attempts: sent.attempts.length, decision: sent.decision }),
      });
      return this.options.onOutcome({ kind: 'unsent', batch });
    }
    await this.conclude(batch, outcome, sent.result.sent);
    this.options.onOverhead?.(performance.now() - sent.result.postedFrom - sent.result.wire.ms);
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
      // --key: reconciled once nothing is in flight, instead of stopping the run
      if (state === 'uncertain' && byKey) byKey.uncertain(batch, sent);
      else {
        // an uncertain answer stopped the run when it came (deliver)
        if (stop && state !== 'uncertain') this.options.stops.stop(stop);
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

export interface PosterOptions {
  post(body: Buffer): Promise<WireResult>;
  journal: BatchJournal;
  /** the webhook URL as displayed (redacted) in log lines */
  displayUrl: string;
  /** keeps the webhook URL out of service messages before they are journaled, logged or shown */
  redact(text: string): string;
  log?: (line: string) => void;
  /** Throws when no batch may leave now (RunStops.mayLeave): checked before the batch is journaled as sending and after. */
  mayLeave?(): void;
}

/** One POST of a batch, when it left and ended, and what it means. */
export interface Posted {
  wire: WireResult;
  outcome: PostOutcome;
  sent: SentRequest;
  /** performance.now() before its "sending" line was journaled */
  postedFrom: number;
}

/** Posts batches to the webhook and keeps count of the requests on the wire. */
export class BatchPoster {
  /** requests on the wire now (for the progress line) */
  inFlight = 0;
  /** when this run's last request to the webhook ended (0: none) */
  lastRequestAt = 0;

  constructor(private readonly options: PosterOptions) {}

  /**
   * Journals the batch as being sent (fsynced), then sends it: the journal never misses a request that
   * left. The limiter's slot hears when it leaves (the fsync is not on the way to the service).
   */
  async post(batch: Batch, slot?: Pick<RateLimitSlot, 'leaves'>): Promise<Posted> {
    const postedFrom = performance.now();
    const { mayLeave } = this.options;
    mayLeave?.();
    await this.options.journal(batch, 'sending');
    try {
      // an uncertain answer may have come during the fsync: then this batch does not leave
      mayLeave?.();
    } catch (error) {
      await this.options.journal(batch, 'unsent', { reason: 'not sent: an earlier batch is uncertain' });
      throw error;
    }
    slot?.leaves?.();
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
    return { wire, outcome, sent: { start, end: this.lastRequestAt }, postedFrom };
  }

  /** Logs an attempt; one that took nothing in and will be tried again (or given up) is journaled as unsent. */
  async attempted(batch: Batch, report: AttemptReport<Posted>): Promise<void> {
    const { wire, outcome } = report.result;
    this.options.log?.(this.options.redact(postLogLine(this.options.displayUrl, { batch, wire, outcome, decision: report.decision })));
    if (outcome.kind === 'retry') await this.options.journal(batch, 'unsent', { status: outcome.status, reason: outcome.detail });
  }
}

/** One attempt to post a batch, as --verbose logs it. */
export interface PostAttempt {
  batch: Batch;
  wire: WireResult;
  outcome: PostOutcome;
  /** undefined for a final answer */
  decision?: RetryDecision;
}

/** The --verbose line of one POST: the answer, its time, the batch and what became of it (the URL as `displayUrl`). */
export function postLogLine(displayUrl: string, { batch, wire, outcome, decision }: PostAttempt): string {
  const answer = wire.kind === 'response' ? String(wire.status) : 'detail' in outcome ? outcome.detail : 'failed';
  const retry = decision?.retry ? `; retry in ${Math.round(decision.waitMs)}ms` : '';
  const records = `records ${batch.first}–${batch.last} (${batch.items.length} objects, ${batch.bytes} bytes)`;
  return `POST ${displayUrl} ${answer} ${Math.round(wire.ms)}ms: batch ${batchId(batch)}, ${records} → ${outcome.kind}${retry}`;
}

/** What a journal line adds to the batch and its state: the answer's status, a reason, the records kept. */
export type JournalExtra = Parameters<typeof entryOf>[2];

/** Journals a state of a batch (or part); resolves once the line is written. */
export type BatchJournal = (batch: Batch, state: BatchState, extra?: JournalExtra) => Promise<void>;

export function batchJournal(journal: { append(entry: JournalEntry): Promise<void> }): BatchJournal {
  return (batch, state, extra = {}) => journal.append(entryOf(batch, state, extra));
}

/** Thrown at a batch about to leave while --key reconciles an uncertain batch: it goes after the reconciling. */
export class HeldBack extends Error {
  constructor() {
    super('held back: an uncertain batch is being reconciled');
    this.name = 'HeldBack';
  }
}

/**
 * The reasons a sending run stops, in the order they came. The first one aborts `signal`: a batch
 * waiting for a rate-limit slot or a retry is then not sent, and one about to leave does not
 * (`mayLeave`). With --key an uncertain answer holds the run instead (`hold`): no batch leaves until
 * the sender has reconciled it and `release`s.
 */
export class RunStops {
  readonly reasons: StopReason[] = [];
  private readonly halt = new AbortController();
  private holding = false;
  private ended = false;

  get signal(): AbortSignal {
    return this.halt.signal;
  }

  get halted(): boolean {
    return this.halt.signal.aborted;
  }

  get held(): boolean {
    return this.holding;
  }

  stop(reason: StopReason): void {
    this.reasons.push(reason);
    this.halt.abort(reason);
  }

  /** Starts no more batches, and lets every batch started go (the webhook's budget is spent). */
  end(reason: StopReason): void {
    this.reasons.push(reason);
    this.ended = true;
  }

  /** No batch starts any more: the run stopped, or ended (`end`). */
  get over(): boolean {
    return this.halted || this.ended;
  }

  hold(): void {
    this.holding = true;
  }

  release(): void {
    this.holding = false;
  }

  /** Throws the run's stop, or HeldBack, when no batch may leave now. */
  mayLeave(): void {
    if (this.halted) throw this.halt.signal.reason;
    if (this.holding) throw new HeldBack();
  }

  /** Whether `error` is this run's stop, ending a wait for a slot or a retry. */
  cutShort(error: unknown): boolean {
    return this.halted && error === this.halt.signal.reason;
  }
}
