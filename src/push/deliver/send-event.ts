import type { Batch } from '../plan/batch.js';

/** What became of a batch (or part) a sending run dealt with. */
export type SendEvent =
  | { kind: 'accepted'; batch: Batch; status: number; success?: boolean; message?: string }
  /** 400, or 413 for a single object: not taken in because of the records */
  | { kind: 'rejected'; batch: Batch; reason: string }
  | { kind: 'uncertain'; batch: Batch; reason: string }
  /** due, but not sent because the run is stopping */
  | { kind: 'pending'; batch: Batch }
  /** --skip-existing: records of the batch whose keys the table held (not sent) */
  | { kind: 'existing'; batch: Batch; records: number }
  /** --key: records of an uncertain request whose keys were found in the table (taken in) */
  | { kind: 'settled'; batch: Batch; records: number };
