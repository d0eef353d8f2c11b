import type { SentRequest } from '../key/intake-window.js';
import type { KeyReconciler } from '../key/reconcile.js';
import type { Batch } from '../plan/batch.js';
import type { BatchJournal } from './batch-journal.js';
import { ReconcileQueue } from './reconcile-queue.js';
import type { SendEvent } from './send-event.js';

export interface KeyHandOffOptions {
  reconciler: Pick<KeyReconciler, 'found' | 'noteAccepted' | 'checkDue' | 'checkKeysShow' | 'rowsVisible'>;
  /** the request timeout: a request cut off while sending may have reached the webhook until then */
  timeoutMs: number;
  journal: BatchJournal;
  onOutcome(event: SendEvent): Promise<void> | void;
}

/**
 * --key: where the sender meets the reconciler. Batches taken in are noted (their keys must show in
 * the table); uncertain ones, of this run or an earlier one, wait to be settled by their keys; the
 * records not found come back to be sent again.
 */
export class KeyHandOff {
  private readonly queue: ReconcileQueue;
  private acceptedAny = false;

  constructor(private readonly options: KeyHandOffOptions) {
    this.queue = new ReconcileQueue(options);
  }

  /** A batch of this run the webhook took in. */
  accepted(batch: Batch, sent: SentRequest): void {
    this.acceptedAny = true;
    this.options.reconciler.noteAccepted(batch, sent);
  }

  /** A batch of this run whose outcome is uncertain: settled later, instead of stopping the run. */
  uncertain(batch: Batch, sent: SentRequest): void {
    this.queue.add(batch, sent);
  }

  /** A batch an earlier run left uncertain: settled without being posted. */
  earlier(batch: Batch & { unsettled: NonNullable<Batch['unsettled']> }): void {
    this.queue.addEarlier(batch);
  }

  /** Uncertain batches wait to be settled (once nothing is in flight). */
  get waiting(): boolean {
    return this.queue.waiting;
  }

  /** The next records to send again, if any. */
  next(): Batch | undefined {
    return this.queue.next();
  }

  /** Settles the waiting batches; `lastRequestAt`: when this run's last request ended. */
  settle(lastRequestAt: number): Promise<void> {
    return this.queue.reconcile(lastRequestAt);
  }

  /** Whether the keys of the first batch taken in must show in the table by now, and were not checked. */
  get checkDue(): boolean {
    return this.options.reconciler.checkDue;
  }

  /** Checks that the keys of the first batch taken in show in the table. */
  checkKeysShow(): Promise<void> {
    return this.options.reconciler.checkKeysShow();
  }

  /** A run that left nothing uncertain: waits until its rows show and their keys can be found (a later run depends on it). */
  async finish(lastRequestAt: number): Promise<void> {
    if (this.acceptedAny) await this.options.reconciler.rowsVisible(lastRequestAt);
  }

  /** A run that stops leaves its unsettled batches uncertain (as journaled) and its queue unsent. */
  leftOver(): Promise<void> {
    return this.queue.leftOver();
  }
}
