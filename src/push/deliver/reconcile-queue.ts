import { narrowBatch, type Batch } from '../plan/batch.js';
import type { SentRequest } from '../key/intake-window.js';
import type { KeyReconciler, SentBatch } from '../key/reconcile.js';
import type { SendEvent } from './classify.js';
import type { BatchJournal } from './deliver-batch.js';

export interface ReconcileQueueOptions {
  reconciler: Pick<KeyReconciler, 'found' | 'noteAccepted' | 'rowsVisible'>;
  /** the request timeout: a request cut off while sending may have reached the webhook until then */
  timeoutMs: number;
  journal: BatchJournal;
  onOutcome(event: SendEvent): Promise<void> | void;
}

/**
 * --key: where the sender meets the reconciler. Batches taken in are noted (their keys must show in
 * the table); uncertain ones, of this run or an earlier one, wait to be reconciled by their keys; the
 * records the table turned out not to hold wait to be sent again.
 */
export class ReconcileQueue {
  /** each with its request: its end is when the webhook may have had it by, at the latest */
  private readonly unreconciled: SentBatch[] = [];
  private readonly again: Batch[] = [];
  private acceptedAny = false;

  constructor(private readonly options: ReconcileQueueOptions) {}

  /** Uncertain batches wait to be reconciled (once nothing is in flight). */
  get waiting(): boolean {
    return this.unreconciled.length > 0;
  }

  /** A batch of this run the webhook took in. */
  accepted(batch: Batch, sent: SentRequest): void {
    this.acceptedAny = true;
    this.options.reconciler.noteAccepted(batch, sent);
  }

  /** A batch of this run whose outcome is uncertain: reconciled later, instead of stopping the run. */
  uncertain(batch: Batch, sent: SentRequest): void {
    this.unreconciled.push({ batch, sent });
  }

  /** A batch that did not leave while an uncertain one waited: sent again once that is reconciled. */
  heldBack(batch: Batch): void {
    this.again.push(batch);
  }

  /**
   * An uncertain batch of an earlier run: its request reached the webhook, if at all, by the time it was
   * journaled uncertain, or (cut off while sending) within the request timeout of its journaled start.
   */
  earlier(batch: Batch & { unreconciled: NonNullable<Batch['unreconciled']> }): void {
    const { at, cutOff } = batch.unreconciled;
    this.unreconciled.push({ batch, sent: { start: -Infinity, end: cutOff ? Math.min(Date.now(), at + this.options.timeoutMs) : at } });
  }

  /** The next records to send again, if any. */
  next(): Batch | undefined {
    return this.again.shift();
  }

  /** Reconciles every waiting batch: found records journaled and counted, the others queued to be sent again. */
  async reconcile(lastRequestAt: number): Promise<void> {
    const waiting = this.unreconciled.splice(0);
    let found;
    try {
      found = await this.options.reconciler.found(waiting, lastRequestAt);
    } catch (error) {
      // not reconciled: they stay uncertain (as journaled), and the run reports them so
      this.unreconciled.push(...waiting);
      throw error;
    }
    const rests: Batch[] = [];
    for (const [i, { batch }] of waiting.entries()) {
      const taken = found[i]!;
      const keep = batch.items.filter((item) => !taken.has(item.record)).map((item) => item.record);
      await this.options.journal(batch, 'narrowed', { keep, why: 'settled' });
      if (taken.size > 0) {
        const earlier = batch.unreconciled?.changed ? { earlier: true as const } : {};
        await this.options.onOutcome({ kind: 'reconciled', batch, records: taken.size, ...earlier });
      }
      const rest = narrowBatch(batch, new Set(keep));
      if (rest) rests.push(rest);
    }
    // before any batch held back meanwhile: the records not found go first
    this.again.unshift(...rests);
  }

  /** A run that left nothing uncertain: waits until its rows show and their keys can be found (a later run depends on it). */
  async finish(lastRequestAt: number): Promise<void> {
    if (this.acceptedAny) await this.options.reconciler.rowsVisible(lastRequestAt);
  }

  /** A run that stops leaves its unreconciled batches uncertain (as journaled) and its queue unsent. */
  async leftOver(): Promise<void> {
    for (const { batch } of this.unreconciled.splice(0)) {
      await this.options.onOutcome({ kind: 'uncertain', batch, reason: 'not reconciled: the run stopped first' });
    }
    for (const batch of this.again.splice(0)) await this.options.onOutcome({ kind: 'unsent', batch });
  }
}
