import { TdsError } from '../../core/index.js';
import { INTAKE_MAX_MS } from '../../service/index.js';
import { type Batch, recordsText } from '../plan/batch.js';
import {
  serviceAheadAtLeast,
  sleepUntil,
  type IntakeTiming,
  type SentRequest,
  type VisibleRow,
  watchIntake,
  type Watch,
  type Watched,
} from './intake-window.js';
import type { KeyLookups } from './key-lookups.js';

export interface ReconcileOptions {
  lookups: Pick<KeyLookups, 'column' | 'rowCount' | 'reconcile' | 'newestCreatedAt'>;
  /** the --key FIELD, for messages */
  field: string;
  /** the intake's windows, as this run waits them */
  intake: IntakeTiming;
  signal: AbortSignal;
  log?: (line: string) => void;
}

/** A batch and its request to the webhook. */
export interface SentBatch {
  batch: Batch;
  sent: SentRequest;
}

/** A request the webhook took in, by some of its keys and its records (for messages). */
interface Taken extends Watched {
  first: number;
  last: number;
}

const keysOf = (batch: Batch): string[] => batch.items.flatMap((item) => (item.key === undefined ? [] : [item.key]));

/**
 * Reconciles uncertain batches by their keys. A key found in the table was taken in; a key not found is
 * missing only once the rows of its request would surely show (intake-window.ts: the longest intake
 * window has passed since the request, or rows of it or of a later request show), and only those
 * records are sent again. Checks on the way that the keys of batches taken in show at all (a webhook
 * that does not fill the key column would make every reconciling send twice), and at the end of a run
 * waits until this run's rows show, so a push by key after it finds them.
 */
export class KeyReconciler {
  private sample: Taken | undefined;
  /** keys of a batch taken in were found: the webhook fills the key column */
  private confirmed = false;
  /**
   * the table never grew by the rows taken in: the service dropped some (a webhook past its budget, a table
   * at its ceiling), so keys not found say nothing of the key column; the run names the dropped records after
   */
  private rowsDropped = false;
  /** rowCount before this run's first request, and the records taken in since: a table that grew by them shows its rows */
  private rowsBefore: number | undefined;
  private accepted = 0;
  /** this run's requests taken in, by one key each */
  private readonly taken: Taken[] = [];
  /** when the last request an earlier run had taken in ended */
  private earlierEnd = -Infinity;
  /** rows of our requests seen: they bound the service's clock */
  private readonly visible: VisibleRow[] = [];

  constructor(private readonly options: ReconcileOptions) {}

  /** The table's rowCount before the first request of this run. */
  begin(rowCount: number): void {
    this.rowsBefore = rowCount;
  }

  /** A batch the webhook took in, in this run or (`thisRun` false, `sent.end` its journal time) an earlier one. */
  noteAccepted(batch: Batch, sent: SentRequest, thisRun = true): void {
    if (thisRun) this.accepted += batch.items.length;
    const keys = keysOf(batch);
    if (keys.length === 0) return;
    const taken = { request: sent, first: batch.first, last: batch.last };
    if (thisRun) this.taken.push({ ...taken, keys: keys.slice(0, 1) });
    else this.earlierEnd = Math.max(this.earlierEnd, sent.end);
    this.sample ??= { ...taken, keys: keys.slice(0, 3) };
  }

  /**
   * A service time no later than the createdAt of any row a request of this run that left after `local`
   * (our clock) adds; undefined until some row of ours is visible (the service's clock is not ours).
   */
  serviceTimeBefore(local: number): number | undefined {
    const ahead = serviceAheadAtLeast(this.visible);
    return ahead === undefined ? undefined : local + ahead;
  }

  private get windowMs(): number {
    return this.options.intake.windowMs;
  }

  /** Whether the first batch taken in must show in the table by now (its longest intake window has passed) and was not checked. */
  get checkDue(): boolean {
    return this.sample !== undefined && !this.confirmed && !this.rowsDropped && Date.now() >= this.sample.request.end + this.windowMs;
  }

  /** Checks that the keys of the first batch taken in show, once they must. */
  async checkKeysVisible(): Promise<void> {
    const sample = this.sample;
    if (!sample || this.confirmed || this.rowsDropped) return;
    const [watch] = await this.watch([sample], [], 'check', sample.request.end);
    await this.mustShow(sample, watch!, false);
  }

  /**
   * The end of a run: waits until the rows of this run's last requests show (and so the rows of every
   * earlier one: the intake takes them in order), which proves the keys show, or until their window
   * has passed. With nothing taken in by this run, waits out the window of an earlier run's last request.
   * Once the keys of some batch showed, keys that did not by their window were dropped by the service:
   * the run names them after (dropped-rows.ts), and this does not fail.
   */
  async rowsVisible(lastRequestAt: number): Promise<void> {
    const latestStart = Math.max(-Infinity, ...this.taken.map((taken) => taken.request.start));
    // `>=`: our clock is to the millisecond, and on a near network a request can end in the one it left in
    const last = this.taken.filter((taken) => taken.request.end >= latestStart);
    if (last.length === 0) {
      await sleepUntil(this.earlierEnd + this.windowMs, this.options.signal);
      return this.checkKeysVisible();
    }
    // the first batch taken in, if not checked yet, is the one an error names
    const unchecked = this.confirmed || this.rowsDropped ? undefined : this.sample;
    const sample = unchecked && !last.some((taken) => taken.request === unchecked.request) ? [unchecked] : [];
    const targets = [...sample, ...last];
    const watches = await this.watch(targets, [], 'check', lastRequestAt);
    if (watches.some((watch) => watch.found.size > 0)) this.confirmed = true;
    for (const [i, taken] of targets.entries()) if (!this.confirmed && !this.rowsDropped) await this.mustShow(taken, watches[i]!, false);
  }

  /** For each batch, the records whose keys the table holds. `lastRequestAt`: when this run's last request ended. */
  async found(entries: readonly SentBatch[], lastRequestAt: number): Promise<Array<ReadonlySet<number>>> {
    const targets: Watched[] = entries.map(({ batch, sent }) => ({ request: sent, keys: keysOf(batch) }));
    const sample = this.confirmed ? undefined : this.sample;
    const firstEnd = Math.min(...entries.map(({ sent }) => sent.end));
    // the latest request taken in, when it left after an uncertain one ended: its rows showing prove that one's
    const witness = this.taken.reduce<Taken | undefined>(
      (latest, taken) => (taken.request.start > (latest?.request.start ?? firstEnd) ? taken : latest),
      undefined,
    );
    const watches = await this.watch(sample ? [...targets, sample] : targets, witness ? [witness] : [], 'reconcile', lastRequestAt);
    if (sample) await this.mustShow(sample, watches.at(-1)!, true);
    const keys = targets.flatMap((target) => target.keys);
    const found = watches.slice(0, entries.length).reduce((sum, watch) => sum + watch.found.size, 0);
    if (!this.sample && found === 0 && (await this.grewByAll(keys.length))) {
      throw this.unfindable(`the uncertain records ${entries.map(({ batch }) => `${batch.first}–${batch.last}`).join(', ')}`, true);
    }
    this.options.log?.(`reconciled by key: ${found} of ${keys.length} keys found in the table`);
    // rows of this run now, as the records taken in are
    this.accepted += found;
    return entries.map(
      ({ batch }, i) =>
        new Set(batch.items.filter((item) => item.key !== undefined && watches[i]!.found.has(item.key)).map((item) => item.record)),
    );
  }

  private watch(
    targets: readonly Watched[],
    witnesses: readonly Watched[],
    use: 'reconcile' | 'check',
    lastRequestAt: number,
  ): Promise<Watch[]> {
    return watchIntake(targets, witnesses, {
      lookups: this.options.lookups,
      use,
      intake: this.options.intake,
      signal: this.options.signal,
      lastRequestAt,
      visible: this.visible,
      onLookup: (plan, keys) =>
        this.options.log?.(
          `${use === 'reconcile' ? 'reconciling' : 'looking for'} ${keys} keys${use === 'reconcile' ? ' of uncertain records' : ' taken in'}: ${plan}`,
        ),
    });
  }

  /**
   * The keys of a request taken in must show once its rows must: else the webhook does not fill the key
   * column (later lookups would all miss, and reconciling would send twice), unless its rows are not in the
   * table's rowCount yet (a slower intake than the service's, or an emulator not scaled as this run).
   */
  private async mustShow(taken: Taken, watch: Watch, reconciling: boolean): Promise<void> {
    if (watch.found.size === 0) {
      if (await this.rowsShow()) {
        const { lookup } = await this.options.lookups.reconcile(taken.keys, 'check');
        for (const key of (await lookup.find(taken.keys)).keys()) watch.found.add(key);
      } else if (!reconciling) {
        // rows taken in never showed: dropped by the service, not a key column left unfilled
        this.rowsDropped = true;
        return;
      }
    }
    if (watch.found.size === 0) throw this.unfindable(recordsText(taken), reconciling);
    this.confirmed = true;
  }

  /** With no batch known to be taken in: the table grew by every record sent, yet shows none of the keys. */
  private async grewByAll(uncertain: number): Promise<boolean> {
    if (this.rowsBefore === undefined) return false;
    return (await this.options.lookups.rowCount()) - this.rowsBefore >= this.accepted + uncertain;
  }

  /**
   * Whether the rows this run had taken in show in the table's rowCount, waiting for them up to the
   * service's whole intake window, unscaled. False: they never all showed.
   */
  private async rowsShow(): Promise<boolean> {
    if (this.rowsBefore === undefined || this.accepted === 0) return true;
    const deadline = Date.now() + INTAKE_MAX_MS;
    for (;;) {
      if ((await this.options.lookups.rowCount()) - this.rowsBefore >= this.accepted) return true;
      if (Date.now() >= deadline) return false;
      await sleepUntil(Math.min(Date.now() + 1000, deadline), this.options.signal);
    }
  }

  private unfindable(which: string, reconciling: boolean): TdsError {
    const column = this.options.lookups.column.field.label;
    const what = reconciling ? 'cannot reconcile uncertain records by key' : 'the keys cannot be found in the table';
    return new TdsError(
      'PUSH_INCOMPLETE',
      `${what}: the column "${column}" does not show the keys of ${which}, which the webhook took in`,
      {
        hint:
          `the webhook does not fill "${column}" from "${this.options.field}": map that key to the column in the table's webhook settings, ` +
          `or name the column it fills with --key FIELD=COLUMN${reconciling ? '; the uncertain batches are left in the journal' : ''}`,
      },
    );
  }
}
