import { batchId, type Batch } from './batch.js';

export interface Counts {
  batches: number;
  records: number;
}

export interface UncertainBatch {
  batch: string;
  first: number;
  last: number;
  count: number;
  /** what made it uncertain: a status and message, or the network failure */
  reason?: string;
}

const SAMPLE = 1000;

/** Running counts of one read of the input (planning or sending). */
export class PushTally {
  skipped = 0;
  /** whole batches the input makes */
  readonly planned = { batches: 0, records: 0, bytes: 0 };
  /** batches (or parts) this run has to send */
  readonly toSend = { batches: 0, records: 0, bytes: 0 };
  /** taken in by the webhook in this run */
  readonly sent = { batches: 0, records: 0, bytes: 0 };
  /** taken in by an earlier run (--resume) */
  readonly already: Counts = { batches: 0, records: 0 };
  /** not taken in because of the records themselves: too large, or a 400 */
  readonly rejected = { records: 0, oversized: 0, sample: [] as number[] };
  /** rows may have been added: not re-sent without --resend-uncertain */
  readonly uncertain: UncertainBatch[] = [];
  /** batches that were due but not sent because the run stopped */
  readonly unsent: Counts = { batches: 0, records: 0 };
  /** --key: records whose key repeats an earlier record's (not sent); the first pairs */
  readonly duplicates = { records: 0, sample: [] as Array<[record: number, of: number]> };
  /** --skip-existing: records whose key the table already held (not sent) */
  existing = 0;
  /** --key: records of uncertain requests whose keys were then found in the table */
  reconciled = 0;
  /** --key: records an earlier run sent, found in the table by key (an input changed since, or the journal's earlier finds) */
  earlierRuns = 0;

  duplicate(record: number, of: number): void {
    this.duplicates.records += 1;
    if (this.duplicates.sample.length < SAMPLE) this.duplicates.sample.push([record, of]);
  }

  reject(records: readonly number[], oversized = false): void {
    this.rejected.records += records.length;
    if (oversized) this.rejected.oversized += records.length;
    for (const record of records) if (this.rejected.sample.length < SAMPLE) this.rejected.sample.push(record);
  }

  markUncertain(batch: Batch, reason?: string): void {
    this.uncertain.push({
      batch: batchId(batch),
      first: batch.first,
      last: batch.last,
      count: batch.items.length,
      ...(reason ? { reason } : {}),
    });
  }

  /**
   * One tally from the read of the whole input (what it holds and what the journal says) and
   * the sending (what happened to each request), which may have stopped part way.
   */
  static combine(scan: PushTally, send: PushTally): PushTally {
    const all = new PushTally();
    all.skipped = scan.skipped;
    Object.assign(all.planned, scan.planned);
    Object.assign(all.toSend, scan.toSend);
    Object.assign(all.already, scan.already);
    Object.assign(all.sent, send.sent);
    Object.assign(all.unsent, send.unsent);
    all.duplicates.records = scan.duplicates.records;
    all.duplicates.sample.push(...scan.duplicates.sample);
    all.existing = scan.existing + send.existing;
    all.reconciled = scan.reconciled + send.reconciled;
    all.earlierRuns = scan.earlierRuns + send.earlierRuns;
    for (const part of [scan, send]) {
      all.rejected.records += part.rejected.records;
      all.rejected.oversized += part.rejected.oversized;
      all.rejected.sample.push(...part.rejected.sample.slice(0, SAMPLE - all.rejected.sample.length));
      all.uncertain.push(...part.uncertain);
    }
    return all;
  }

  get uncertainRecords(): number {
    return this.uncertain.reduce((sum, batch) => sum + batch.count, 0);
  }
}

export function add(counts: Counts & { bytes?: number }, batch: Batch): void {
  counts.batches += 1;
  counts.records += batch.items.length;
  if (counts.bytes !== undefined) counts.bytes += batch.bytes;
}
