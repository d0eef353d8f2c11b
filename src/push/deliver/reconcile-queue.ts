import { narrowBatch, type Batch } from '../plan/batch.js';
import type { SentRequest } from '../key/intake-window.js';
import type { KeyReconciler, SentBatch } from '../key/reconcile.js';
import type { BatchJournal } from './batch-journal.js';
import type { SendEvent } from './send-event.js';

export interface ReconcileQueueOptions {
  reconciler: Pick<KeyReconciler, 'found'>;
  /** the request timeout: a request cut off while sending may have reached the webhook until then */
  timeoutMs: number;
  journal: BatchJournal;
  onOutcome(event: SendEvent): Promise<void> | void;
}

/**
 * --key: the uncertain batches waiting to be settled by their keys, and the records the table turned
 * out not to hold, waiting to be sent again.
 */
export class ReconcileQueue {
  /** each with its request: its end is when the webhook may have had it by, at the latest */
  private readonly unsettled: SentBatch[] = [];
  private readonly again: Batch[] = [];

  constructor(private readonly options: ReconcileQueueOptions) {}

  get waiting(): boolean {
    return this.unsettled.length > 0;
  }

  /** A batch of this run whose outcome is uncertain. */
  add(batch: Batch, sent: SentRequest): void {
    this.unsettled.push({ batch, sent });
  }

  /**
   * An uncertain batch of an earlier run: its request reached the webhook, if at all, by the time it was
   * journaled uncertain, or (cut off while sending) within the request timeout of its journaled start.
   */
  addEarlier(batch: Batch & { unsettled: NonNullable<Batch['unsettled']> }): void {
    const { at, cutOff } = batch.unsettled;
    this.unsettled.push({ batch, sent: { start: -Infinity, end: cutOff ? Math.min(Date.now(), at + this.options.timeoutMs) : at } });
  }

  /** The next records to send again, if any. */
  next(): Batch | undefined {
    return this.again.shift();
  }

  /** Reconciles every waiting batch: found records journaled and counted, the others queued to be sent again. */
  async reconcile(lastRequestAt: number): Promise<void> {
    const waiting = this.unsettled.splice(0);
    let found;
    try {
      found = await this.options.reconciler.found(waiting, lastRequestAt);
    } catch (error) {
      // not settled: they stay uncertain (as journaled), and the run reports them so
      this.unsettled.push(...waiting);
      throw error;
    }
    for (const [i, { batch }] of waiting.entries()) {
      const taken = found[i]!;
      const keep = batch.items.filter((item) => !taken.has(item.record)).map((item) => item.record);
      await this.options.journal(batch, 'narrowed', { keep, why: 'settled' });
      if (taken.size > 0) await this.options.onOutcome({ kind: 'settled', batch, records: taken.size });
      const rest = narrowBatch(batch, new Set(keep));
      if (rest) this.again.push(rest);
    }
  }

  /** A run that stops leaves its unsettled batches uncertain (as journaled) and its queue unsent. */
  async leftOver(): Promise<void> {
    for (const { batch } of this.unsettled.splice(0)) {
      await this.options.onOutcome({ kind: 'uncertain', batch, reason: 'not settled: the run stopped first' });
    }
    for (const batch of this.again.splice(0)) await this.options.onOutcome({ kind: 'pending', batch });
  }
}
