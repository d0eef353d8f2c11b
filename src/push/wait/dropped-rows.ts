import { appendFile } from 'node:fs/promises';
import type { KeyLookups } from '../key/key-lookups.js';
import type { LedgerCount } from '../ledger/index.js';

// Rows the webhook took in (2xx) that the table never shows: *dropped* by the service (issue 45: a webhook
// past its budget, a table at its row ceiling, both still answer success). Plain `--wait` finds how many
// from the row count (wait-rows.ts); push by key names them from its key lookups (droppedByKey). Both say
// the likely cause (droppedCause) and list the records in --rejects (writeDropped).

/** Rows dropped by the service, as the summary and its JSON give them. */
export interface DroppedRows {
  count: number;
  records: Array<{ first: number; last: number }>;
  /** the likely cause, in words */
  cause: string;
}

/** What the likely cause is judged from: the limits in force, the table's row count now, the webhook's ledger. */
export interface DropEvidence {
  /** table-capacity (undefined: off) */
  capacity?: number | undefined;
  /** webhook-budget (undefined: off) */
  budget?: number | undefined;
  rowCount: number;
  ledger?: LedgerCount | undefined;
}

const n = (value: number): string => value.toLocaleString('en-US');

/** The likely cause of rows dropped, in words: the table at its ceiling, the webhook past its budget, or either. */
export function droppedCause(evidence: DropEvidence): string {
  const { capacity, budget, rowCount, ledger } = evidence;
  if (capacity !== undefined && rowCount >= capacity) {
    return `the table holds ${n(rowCount)} rows, its row ceiling (table-capacity ${n(capacity)}): it silently stops accepting rows when full`;
  }
  if (budget !== undefined && ledger && ledger.submissions + ledger.uncertain >= budget) {
    return `the webhook is past its budget of ${n(budget)} submissions (webhook-budget; \`tds webhooks\`)`;
  }
  return 'a webhook past its budget of submissions (`tds webhooks`), a table at its row ceiling (table-capacity), or a webhook that feeds another table than --table';
}

/** --rejects FILE: one line per dropped record, after the rejected ones. */
export async function writeDropped(path: string, records: readonly number[], cause: string): Promise<void> {
  const reason = `dropped by the service: accepted, never shown in the table (${cause})`;
  await appendFile(path, records.map((record) => `${JSON.stringify({ record, reason })}\n`).join(''));
}

/** What push by key knows of its run once the intake window of its last request has passed. */
export interface KeyedRun {
  /** the key of each record the webhook took in this run */
  acceptedKeys: ReadonlyMap<number, string>;
  /** records of uncertain requests found in the table (rows of this run too) */
  reconciled: number;
  /** the table's rowCount before the run's first request */
  rowsBefore: number;
}

/**
 * Push by key: the records taken in whose keys the table does not show, in record order; `rowCount` is the
 * table's now. One row-count read when the table grew by every row of the run; else the run's keys are
 * looked up (the plan of fewest row requests) and those missing are the dropped ones.
 */
export async function droppedByKey(
  lookups: Pick<KeyLookups, 'rowCount' | 'reconcile'>,
  run: KeyedRun,
): Promise<{ records: number[]; rowCount: number }> {
  const rowCount = await lookups.rowCount();
  if (run.acceptedKeys.size === 0 || rowCount - run.rowsBefore >= run.acceptedKeys.size + run.reconciled) return { records: [], rowCount };
  const keys = [...new Set(run.acceptedKeys.values())];
  const { lookup } = await lookups.reconcile(keys, 'check', rowCount);
  const found = await lookup.find(keys);
  const records = [...run.acceptedKeys].filter(([, key]) => !found.has(key)).map(([record]) => record);
  return { records: records.sort((a, b) => a - b), rowCount };
}
