import type { RateLimiter, RetryPolicy } from '../../http/index.js';
import type { JournalEntry } from '../journal/journal-format.js';
import type { KeyReconciler } from '../key/reconcile.js';
import { splitBatch, type Batch } from '../plan/batch.js';
import type { SendEvent, StopReason } from './classify.js';
import { BatchDelivery, BatchPoster, batchJournal, RunStops, type BatchJournal } from './deliver-batch.js';
import { MAX_BYTES_IN_FLIGHT } from './in-flight.js';
import { ReconcileQueue } from './reconcile-queue.js';
import type { WireResult } from './webhook-client.js';

export interface SendOptions {
  /** how many requests to keep in flight now (in-flight.ts: rate × round trip, within --concurrency) */
  inFlightLimit(): number;
  /** hears how long each concluded batch kept its place in flight beyond its round trip (in-flight.ts) */
  onOverhead?(ms: number): void;
  /** --max-retries and the waits between tries (retry-after, backoff) */
  retry: Omit<RetryPolicy, 'idempotent'>;
  limiter: Pick<RateLimiter, 'acquireSlot' | 'pause'>;
  post(body: Buffer): Promise<WireResult>;
  journal: { append(entry: JournalEntry): Promise<void> };
  /** ctx.signal (SIGINT): start no more batches; the ones in flight finish and are journaled */
  interrupt: AbortSignal;
  /** the webhook URL as displayed (redacted) in log lines */
  displayUrl: string;
  /** keeps the webhook URL out of service messages before they are journaled, logged or shown */
  redact(text: string): string;
  log?: (line: string) => void;
  /** Called once for every batch (or part) this run has dealt with, before its slot is freed. */
  onOutcome(event: SendEvent): Promise<void> | void;
  /** --key: uncertain batches are reconciled by looking their keys up, and the run goes on */
  reconciler?: Pick<KeyReconciler, 'found' | 'noteAccepted' | 'checkDue' | 'checkKeysVisible' | 'rowsVisible'>;
  /** the request timeout: a request cut off while sending may have reached the webhook until then */
  timeoutMs?: number;
  /** the submissions the webhook has left (webhook-budget; push/ledger): no batch starts past them */
  budget?: SubmissionBudget;
}

/** What the webhook has left of its budget of submissions, as batches start (push/ledger). */
export interface SubmissionBudget {
  readonly budget: number;
  /** records that may still start */
  readonly left: number;
  take(records: number): void;
}

/**
 * Sends batches with at most `inFlightLimit()` in flight, starting one only while less than
 * MAX_BYTES_IN_FLIGHT of bodies are (deliver-batch.ts: one batch, from its POST to its outcome). Stops starting batches at the first uncertain outcome (with --key: reconciles it by its
 * keys and goes on), give-up or interrupt; batches in flight always finish and are journaled.
 * Batches are pulled from the input only when a sender is free.
 */
export class BatchSender {
  private readonly stops = new RunStops();
  private readonly poster: BatchPoster;
  private readonly delivery: BatchDelivery;
  /** --key: uncertain batches to reconcile by key, and records to send again */
  private readonly byKey?: ReconcileQueue;
  private readonly running = new Set<Promise<void>>();
  /** bytes of the bodies of the batches running (MAX_BYTES_IN_FLIGHT) */
  private runningBytes = 0;
  /** the most batches this run had in flight at once */
  private most = 0;

  private readonly journal: BatchJournal;

  constructor(private readonly options: SendOptions) {
    const journal = batchJournal(options.journal);
    this.journal = journal;
    this.poster = new BatchPoster({ ...options, journal, mayLeave: () => this.stops.mayLeave() });
    if (options.reconciler) {
      this.byKey = new ReconcileQueue({
        reconciler: options.reconciler,
        timeoutMs: options.timeoutMs ?? 0,
        journal,
        onOutcome: options.onOutcome,
      });
    }
    this.delivery = new BatchDelivery({ ...options, poster: this.poster, stops: this.stops, journal, byKey: this.byKey });
  }

  /** Requests on the wire now (for the progress line). */
  get inFlight(): number {
    return this.poster.inFlight;
  }

  /** The most requests this run had in flight at once (never more than the batches it sent). */
  get mostInFlight(): number {
    return this.most;
  }

  /** When this run's last request to the webhook ended (0: none). */
  get lastRequestAt(): number {
    return this.poster.lastRequestAt;
  }

  async run(batches: AsyncIterable<Batch>): Promise<StopReason[]> {
    const { interrupt } = this.options;
    const onInterrupt = (): void => this.stops.stop({ kind: 'interrupted' });
    if (interrupt.aborted) onInterrupt();
    else interrupt.addEventListener('abort', onInterrupt, { once: true });
    const iterator = batches[Symbol.asyncIterator]();
    try {
      await this.loop(iterator);
      if (!this.stops.halted) await this.byKey?.finish(this.lastRequestAt);
      // the webhook's budget is spent: the rest of the input is read, not sent, so the summary says how much is left
      if (this.stops.reasons.some((reason) => reason.kind === 'budget')) {
        for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
          await this.options.onOutcome({ kind: 'unsent', batch: next.value });
        }
      }
    } catch (error) {
      this.stops.stop({ kind: 'failed', error });
    } finally {
      await Promise.all(this.running);
      interrupt.removeEventListener('abort', onInterrupt);
      await iterator.return?.(undefined);
      await this.byKey?.leftOver();
    }
    return this.stops.reasons;
  }

  /**
   * Starts batches while senders are free. With --key, an uncertain answer holds every batch that has
   * not left (RunStops.hold); once nothing is in flight the uncertain batches are reconciled together,
   * and the records not found and the batches held back go first in the queue.
   */
  private async loop(iterator: AsyncIterator<Batch>): Promise<void> {
    const { running, byKey, stops } = this;
    let inputDone = false;
    while (!stops.over) {
      if (byKey && (byKey.waiting || stops.held)) {
        if (running.size > 0) await Promise.race(running);
        else {
          if (byKey.waiting) await byKey.reconcile(this.lastRequestAt);
          stops.release();
        }
        continue;
      }
      const { reconciler } = this.options;
      if (reconciler?.checkDue) await reconciler.checkKeysVisible();
      if (running.size >= this.options.inFlightLimit() || this.runningBytes >= MAX_BYTES_IN_FLIGHT) {
        await Promise.race(running);
        continue;
      }
      let batch = byKey?.next();
      if (!batch && !inputDone) {
        const next = await iterator.next();
        inputDone = next.done === true;
        batch = next.done ? undefined : next.value;
      }
      if (batch?.unreconciled && byKey) byKey.earlier({ ...batch, unreconciled: batch.unreconciled });
      else if (batch) await this.startWithin(batch);
      else if (running.size > 0) await Promise.race(running);
      else return;
    }
  }

  /**
   * Starts the batch if the webhook's budget takes it; else the part that fits (journaled as a split
   * at that record), and no batch after it: the records past the budget are unsent.
   */
  private async startWithin(batch: Batch): Promise<void> {
    const { budget } = this.options;
    if (!budget || batch.items.length <= budget.left) {
      budget?.take(batch.items.length);
      return this.start(batch);
    }
    const fits = budget.left;
    this.stops.end({ kind: 'budget', budget: budget.budget, left: fits });
    if (fits === 0) return this.options.onOutcome({ kind: 'unsent', batch });
    await this.journal(batch, 'split', {
      reason: `the webhook's budget of ${budget.budget} submissions takes ${fits} more`,
      splitAt: fits,
    });
    const [now, later] = splitBatch(batch, fits);
    budget.take(fits);
    this.start(now);
    await this.options.onOutcome({ kind: 'unsent', batch: later });
  }

  private start(batch: Batch): void {
    this.runningBytes += batch.bytes;
    const task: Promise<void> = this.delivery
      .begin(batch)
      .catch((error: unknown) => this.stops.stop({ kind: 'failed', error }))
      .finally(() => {
        this.running.delete(task);
        this.runningBytes -= batch.bytes;
      });
    this.running.add(task);
    this.most = Math.max(this.most, this.running.size);
  }
}
