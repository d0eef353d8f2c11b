import { setTimeout as sleep } from 'node:timers/promises';
import { TdsError } from '../../core/errors.js';
import { INTAKE_MAX_MS, INTAKE_QUIET_MS } from '../../service/index.js';
import type { Batch } from '../plan/batch.js';
import { recordsText } from '../report/ranges.js';
import type { KeyLookups } from './key-lookups.js';

export interface ReconcileOptions {
  lookups: KeyLookups;
  /** the --key FIELD, for messages */
  field: string;
  /** TDS_RATE_SCALE: the intake window is divided by it (the emulator's is scaled the same way in tests) */
  rateScale: number;
  signal: AbortSignal;
  log?: (line: string) => void;
}

/** Keys of a batch the webhook took in, to check that the table can show keys at all. */
interface Sample {
  keys: string[];
  first: number;
  last: number;
  /** when it was known to be taken in (0: by an earlier run) */
  at: number;
}

const keysOf = (batch: Batch): string[] => batch.items.flatMap((item) => (item.key === undefined ? [] : [item.key]));

/**
 * Settles uncertain batches by their keys: once the webhook's intake window has passed (about 5 s
 * after the last request, up to about 30 s while requests kept arriving: service-api.md 4.7; the
 * table's rowCount holding still confirms it), the batches' keys are looked up in the table. A
 * record whose key is there was taken in; the others were not, and are sent again.
 */
export class KeyReconciler {
  private sample: Sample | undefined;
  /** the sample's keys were found: the webhook fills the key column */
  private confirmed = false;
  /** rowCount before this run's first request, and the records taken in since: a table that grew by them shows its rows */
  private rowsBefore: number | undefined;
  private accepted = 0;

  constructor(private readonly options: ReconcileOptions) {}

  /** The table's rowCount before the first request of this run. */
  begin(rowCount: number): void {
    this.rowsBefore = rowCount;
  }

  /** A batch the webhook took in (in this run or an earlier one): its keys show whether the table holds keys at all. */
  noteAccepted(batch: Batch, thisRun: boolean): void {
    if (thisRun) this.accepted += batch.items.length;
    const keys = keysOf(batch).slice(0, 3);
    if (keys.length > 0 && !this.sample) this.sample = { keys, first: batch.first, last: batch.last, at: thisRun ? Date.now() : 0 };
  }

  /** Whether the first batch taken in should show in the table by now (its intake window has surely passed) and was not checked. */
  get checkDue(): boolean {
    return this.sample !== undefined && !this.confirmed && Date.now() >= this.sample.at + INTAKE_MAX_MS / this.options.rateScale;
  }

  /**
   * Checks that the keys of a batch taken in show in the table: a webhook that does not fill the key
   * column would make every later lookup miss (and a settled batch be sent twice). At the end of a
   * run (`lastRequestAt` given), the intake window is waited out first.
   */
  async checkKeysShow(lastRequestAt?: number): Promise<void> {
    const sample = this.sample;
    if (!sample || this.confirmed) return;
    if (lastRequestAt !== undefined && !this.checkDue) await this.waitForIntake(lastRequestAt);
    const shows = async (): Promise<boolean> => {
      const { lookup } = await this.options.lookups.reconcile(sample.keys, 'check');
      return (await lookup.present(sample.keys)).size > 0;
    };
    if (!(await shows()) && !((await this.rowsShow()) && (await shows()))) {
      throw this.unfindable(recordsText(sample), false);
    }
    this.confirmed = true;
  }

  /** For each batch, the records whose keys the table holds. `lastRequestAt`: when the webhook may have had the last request. */
  async found(batches: readonly Batch[], lastRequestAt: number): Promise<Array<ReadonlySet<number>>> {
    await this.waitForIntake(lastRequestAt);
    const keys = batches.flatMap(keysOf);
    const sample = this.sample;
    const lookUp = async (): Promise<ReadonlySet<string>> => {
      const { plan, lookup } = await this.options.lookups.reconcile([...keys, ...(sample?.keys ?? [])]);
      this.options.log?.(`settling ${keys.length} keys of uncertain records: ${plan.text}`);
      return lookup.present([...keys, ...(sample?.keys ?? [])]);
    };
    const sampleIn = (found: ReadonlySet<string>): boolean => !sample || sample.keys.some((key) => found.has(key));
    let present = await lookUp();
    if (!sampleIn(present) && (await this.rowsShow())) present = await lookUp();
    if (!sampleIn(present)) throw this.unfindable(recordsText(sample!), true);
    if (sample) this.confirmed = true;
    if (!sample && !keys.some((key) => present.has(key)) && (await this.grewByAll(keys.length))) {
      throw this.unfindable(`the uncertain records ${batches.map((batch) => `${batch.first}–${batch.last}`).join(', ')}`, true);
    }
    this.options.log?.(`settled by key: ${keys.filter((key) => present.has(key)).length} of ${keys.length} keys found in the table`);
    return batches.map(
      (batch) => new Set(batch.items.filter((item) => item.key !== undefined && present.has(item.key)).map((item) => item.record)),
    );
  }

  /** With no batch known to be taken in: the table grew by every record sent, yet shows none of the keys. */
  private async grewByAll(uncertain: number): Promise<boolean> {
    if (this.rowsBefore === undefined) return false;
    return (await this.options.lookups.rowCount()) - this.rowsBefore >= this.accepted + uncertain;
  }

  /**
   * When the keys of records taken in do not show, whether the rows this run had taken in show in the
   * table's rowCount, waiting for them up to the service's whole intake window, unscaled: a webhook
   * that does not fill the key column is told from rows not visible yet (TDS_RATE_SCALE shortens the
   * waits above, and an emulator's intake need not be as fast). False: they never all showed.
   */
  private async rowsShow(): Promise<boolean> {
    if (this.rowsBefore === undefined || this.accepted === 0) return true;
    const deadline = Date.now() + INTAKE_MAX_MS;
    for (;;) {
      if ((await this.options.lookups.rowCount()) - this.rowsBefore >= this.accepted) return true;
      if (Date.now() >= deadline) return false;
      await this.pause(Math.min(1000, deadline - Date.now()));
    }
  }

  /** Waits out the webhook's intake window, then for the table's rowCount to hold still (or the window's end). */
  private async waitForIntake(lastRequestAt: number): Promise<void> {
    const scale = this.options.rateScale;
    const latest = lastRequestAt + INTAKE_MAX_MS / scale;
    await this.pause(lastRequestAt + INTAKE_QUIET_MS / scale - Date.now());
    let count = await this.options.lookups.rowCount();
    while (Date.now() < latest) {
      await this.pause(Math.min(1000 / scale, latest - Date.now()));
      const next = await this.options.lookups.rowCount();
      if (next === count) return;
      count = next;
    }
  }

  private async pause(ms: number): Promise<void> {
    if (ms <= 0) return;
    await sleep(ms, undefined, { signal: this.options.signal }).catch(() => {
      throw this.options.signal.reason;
    });
  }

  private unfindable(which: string, settling: boolean): TdsError {
    const column = this.options.lookups.column.field.label;
    const what = settling ? 'cannot settle uncertain records by key' : 'the keys cannot be found in the table';
    return new TdsError(
      'PUSH_INCOMPLETE',
      `${what}: the column "${column}" does not show the keys of ${which}, which the webhook took in`,
      {
        hint:
          `the webhook does not fill "${column}" from "${this.options.field}": map that key to the column in the table's webhook settings, ` +
          `or name the column it fills with --key FIELD=COLUMN${settling ? '; the uncertain batches are left in the journal' : ''}`,
      },
    );
  }
}
