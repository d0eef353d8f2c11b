import type { NetworkFigures } from '../deliver/in-flight.js';
import type { LookupRequests } from '../key/key-lookups.js';
import type { PushTally, UncertainBatch } from '../plan/tally.js';
import type { WaitSummary } from '../wait/wait-rows.js';

// The summary of a push: its counts and figures, as `--json` prints them and as stderr shows them.

/** --key: what the keys decided. */
export interface KeySummary {
  field: string;
  /** the column's ID */
  column: string;
  /** records whose key repeats an earlier record's (not sent) */
  duplicates: number;
  /** the first pairs [record, earlier record] */
  duplicatePairs: Array<[number, number]>;
  /** --skip-existing: records whose key the table held (not sent) */
  existing: number;
  /** records of uncertain requests found in the table (reconciled, not sent again) */
  reconciled: number;
  /** the same count under the name of earlier releases, kept for their scripts (*settled* is an action cell's word) */
  settled: number;
  /** records an earlier run sent, found in the table by key (an input that changed or grew since, or that run's finds): not sent again */
  earlierRuns: number;
  /** how --skip-existing looked keys up */
  lookup: string | null;
  /** row requests of every key lookup */
  lookupRequests: number;
  /** the same, by what they were for: --skip-existing, the check that keys show, reconciling uncertain requests, --wait settled */
  lookupRequestsByUse: LookupRequests;
}

/** What `tds push --json` prints, and what the summary on stderr shows. */
export interface PushSummary {
  input: string;
  format: string;
  webhook: string | null;
  dryRun: boolean;
  resumed: boolean;
  records: {
    read: number;
    /** taken in by the webhook in this run */
    sent: number;
    /** taken in by an earlier run (--resume) */
    alreadySent: number;
    /** empty objects */
    skipped: number;
    /** too large to send, or rejected by the webhook (400) */
    rejected: number;
    /** of the rejected: objects too large to send alone */
    tooLarge: number;
    uncertain: number;
    /** due but not sent (run again with --resume); null when a streamed input was not read to its end */
    notSent: number | null;
  };
  batches: { total: number; sent: number; alreadySent: number; uncertain: number };
  /** --dry-run: what a push would send */
  plan?: { batches: number; records: number; bytes: number };
  /** request body bytes sent (dry run: of every batch) */
  bytes: number;
  seconds: number;
  /** reading and checking a file before the first request */
  checkSeconds?: number;
  /** from the start of sending to the last answer (the wait for the rows after it not included) */
  sendSeconds?: number;
  /** records sent per second of sending (dry run: read per second of the run) */
  recordsPerSecond: number;
  network?: NetworkFigures;
  /** the webhook's budget of submissions (webhook-budget): used, this run included, and left */
  budget?: { budget: number; used: number; left: number };
  uncertain: UncertainBatch[];
  /** record numbers of rejected records (the first 1000) */
  rejectedRecords: number[];
  journal: string | null;
  rejects: string | null;
  wait?: WaitSummary;
  key?: KeySummary;
}

export interface SummaryInput {
  input: string;
  format: string;
  webhook?: string;
  dryRun: boolean;
  resumed: boolean;
  read: number;
  tally: PushTally;
  notSent: number | null;
  seconds: number;
  checkSeconds?: number;
  sendSeconds?: number;
  network?: NetworkFigures;
  /** the webhook's budget of submissions (webhook-budget): used, this run included, and left */
  budget?: { budget: number; used: number; left: number };
  journal?: string;
  rejects?: string;
  wait?: WaitSummary;
  key?: { field: string; column: string; lookup: string | null; lookupRequests: LookupRequests };
}

export function buildSummary(input: SummaryInput): PushSummary {
  const { tally } = input;
  const moved = input.dryRun ? input.read : tally.sent.records;
  // the rate of sending: reading a file first and waiting for its rows (--wait) are not sending
  const movingSeconds = input.dryRun ? input.seconds : (input.sendSeconds ?? input.seconds);
  return {
    input: input.input,
    format: input.format,
    webhook: input.webhook ?? null,
    dryRun: input.dryRun,
    resumed: input.resumed,
    records: {
      read: input.read,
      sent: tally.sent.records,
      alreadySent: tally.already.records,
      skipped: tally.skipped,
      rejected: tally.rejected.records,
      tooLarge: tally.rejected.oversized,
      uncertain: tally.uncertainRecords,
      notSent: input.notSent,
    },
    batches: {
      total: tally.planned.batches,
      sent: tally.sent.batches,
      alreadySent: tally.already.batches,
      uncertain: tally.uncertain.length,
    },
    ...(input.dryRun ? { plan: { ...tally.toSend } } : {}),
    bytes: input.dryRun ? tally.planned.bytes : tally.sent.bytes,
    seconds: round(input.seconds),
    ...(input.checkSeconds !== undefined ? { checkSeconds: round(input.checkSeconds) } : {}),
    ...(input.sendSeconds !== undefined ? { sendSeconds: round(input.sendSeconds) } : {}),
    recordsPerSecond: movingSeconds > 0 ? perSecond(moved / movingSeconds) : 0,
    ...(input.network ? { network: input.network } : {}),
    ...(input.budget ? { budget: input.budget } : {}),
    uncertain: tally.uncertain,
    rejectedRecords: tally.rejected.sample,
    journal: input.journal ?? null,
    rejects: input.rejects ?? null,
    ...(input.wait ? { wait: input.wait } : {}),
    ...(input.key
      ? {
          key: {
            field: input.key.field,
            column: input.key.column,
            duplicates: tally.duplicates.records,
            duplicatePairs: tally.duplicates.sample,
            existing: tally.existing,
            reconciled: tally.reconciled,
            settled: tally.reconciled,
            earlierRuns: tally.earlierRuns,
            lookup: input.key.lookup,
            lookupRequests: Object.values(input.key.lookupRequests).reduce((sum, requests) => sum + requests, 0),
            lookupRequestsByUse: input.key.lookupRequests,
          },
        }
      : {}),
  };
}

const n = (value: number): string => value.toLocaleString('en-US');

/** A rate as a whole number, or with one decimal below 10 (2 records in 6.6 s are 0.3 a second, not 0). */
const perSecond = (rate: number): number => (rate < 10 ? Math.round(rate * 10) / 10 : Math.round(rate));
/** `1 batch`, `2 batches`. */
const count = (value: number, one: string, many: string): string => `${n(value)} ${value === 1 ? one : many}`;

/** The human summary (stderr); `journalNote` follows the journal's path (kept for --resume, or when it goes). */
export function formatSummary(summary: PushSummary, journalNote?: string): string {
  const { records, batches } = summary;
  const lines = [
    summary.dryRun
      ? `dry run of ${summary.input} (${summary.format}): nothing was sent`
      : `push of ${summary.input} (${summary.format}) to ${summary.webhook}${summary.resumed ? ' (resumed)' : ''}`,
  ];
  const row = (label: string, value: string): void => void lines.push(`  ${label.padEnd(16)}${value}`);
  row('records read', n(records.read));
  if (summary.plan) {
    row('batches', `${n(batches.total)} (${n(summary.bytes)} bytes of request bodies)`);
    row('to send', `${count(summary.plan.records, 'record', 'records')} in ${count(summary.plan.batches, 'request', 'requests')}`);
  } else {
    row('sent', `${n(records.sent)} in ${count(batches.sent, 'batch', 'batches')} (${n(summary.bytes)} bytes)`);
  }
  if (summary.resumed) row('already sent', `${n(records.alreadySent)} in ${count(batches.alreadySent, 'batch', 'batches')} (earlier runs)`);
  row('skipped', `${n(records.skipped)} (empty)`);
  if (summary.key) keyRows(summary.key, summary.dryRun, row);
  const rejected = `${n(records.rejected)}${records.tooLarge ? ` (${n(records.tooLarge)} too large)` : ''}: records ${formatRanges(rangesOf(summary.rejectedRecords))}`;
  row('rejected', records.rejected === 0 ? '0' : `${rejected}${summary.rejects ? ` → ${summary.rejects}` : ''}`);
  const batchList = summary.uncertain.map((batch) => batch.batch).join(', ');
  row(
    'uncertain',
    records.uncertain === 0 ? '0' : `${n(records.uncertain)}: records ${formatRanges(summary.uncertain)} (batch ${batchList})`,
  );
  if (!summary.dryRun && records.notSent !== 0)
    row('not sent yet', records.notSent === null ? `the rest of ${summary.input} (not read)` : n(records.notSent));
  const rate = `${n(summary.recordsPerSecond)} records/s`;
  const phases = [
    summary.checkSeconds !== undefined && !summary.dryRun ? `${summary.checkSeconds.toFixed(1)} s checking the input` : undefined,
    summary.sendSeconds !== undefined ? `${summary.sendSeconds.toFixed(1)} s sending, ${rate}` : undefined,
  ].filter(Boolean);
  row(
    'time',
    `${summary.seconds.toFixed(1)} s${phases.length ? ` (${phases.join('; ')})` : ''}${summary.sendSeconds === undefined ? `, ${rate}` : ''}`,
  );
  if (summary.network) {
    const { roundTripMs, inFlight, allowed } = summary.network;
    const most = inFlight === 1 ? '1 request in flight at a time' : `up to ${n(inFlight)} requests in flight at once`;
    row('network', `round trip ${n(roundTripMs)} ms, ${most} (${n(allowed)} allowed)`);
  }
  if (summary.wait) waitRows(summary.wait, row);
  if (summary.budget) {
    const { budget, used, left } = summary.budget;
    row('webhook budget', `${n(used)} of ${n(budget)} submissions used, ${n(left)} left (webhook-budget)`);
  }
  if (summary.journal) row('journal', `${summary.journal}${journalNote ? ` (${journalNote})` : ''}`);
  return `${lines.join('\n')}\n`;
}

function keyRows(key: KeySummary, dryRun: boolean, row: (label: string, value: string) => void): void {
  const pairs = key.duplicatePairs.slice(0, 3).map(([record, of]) => `${record} repeats ${of}`);
  row(
    'duplicates',
    key.duplicates === 0 ? '0' : `${n(key.duplicates)} (same ${key.field}: ${pairs.join(', ')}${key.duplicates > 3 ? ', …' : ''})`,
  );
  if (key.lookup !== null && dryRun) row('existing', `to be looked up: ${key.lookup}`);
  else if (key.lookup !== null) row('existing', `${n(key.existing)} already in the table (${key.lookup})`);
  if (key.earlierRuns > 0) row('sent before', `${n(key.earlierRuns)} records already in the table from an earlier run, not sent again`);
  if (key.reconciled > 0) row('reconciled', `${n(key.reconciled)} of uncertain requests found in the table, not sent again`);
  if (key.lookupRequests > 0)
    row('key lookups', `${count(key.lookupRequests, 'row request', 'row requests')}${lookupUses(key.lookupRequestsByUse)}`);
}

/**
 * What the key lookups' row requests were for: ` (1 for existing keys, 7 waiting for rows to settle)`. The
 * reconciler's are `finding records sent before`: of uncertain requests, or of an input changed since an earlier run.
 */
function lookupUses(requests: LookupRequests): string {
  const parts = [
    requests.existing > 0 ? `${n(requests.existing)} for existing keys` : '',
    requests.check > 0 ? `${n(requests.check)} checking the keys show` : '',
    requests.reconcile > 0 ? `${n(requests.reconcile)} finding records sent before` : '',
    requests.wait > 0 ? `${n(requests.wait)} waiting for rows to settle` : '',
  ].filter(Boolean);
  return parts.length > 0 ? ` (${parts.join(', ')})` : '';
}

function waitRows(wait: WaitSummary, row: (label: string, value: string) => void): void {
  if (wait.mode === 'visible') {
    row('rows visible', `${n(wait.appeared)} of ${n(wait.expected)} new rows after ${wait.seconds.toFixed(1)} s`);
    if (wait.dropped) row('dropped', `${n(wait.dropped)} by the service: records ${formatRanges(wait.droppedRecords ?? [])}`);
    return;
  }
  const running = Object.entries(wait.running).map(([column, cells]) => `${column} ${n(cells)}`);
  row(
    'rows settled',
    `${n(wait.settled)} of ${n(wait.expected)} (${n(wait.visible)} visible) after ${wait.seconds.toFixed(1)} s${running.length ? `; still running: ${running.join(', ')}` : ''}`,
  );
  if (wait.output) row('written', `${n(wait.output.rows)} rows to ${wait.output.path} (${wait.output.format})`);
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

export interface RecordRange {
  first: number;
  last: number;
}

/** Sorted, with touching and overlapping ranges merged. */
export function mergeRanges(ranges: readonly RecordRange[]): RecordRange[] {
  const sorted = [...ranges].sort((a, b) => a.first - b.first);
  const merged: RecordRange[] = [];
  for (const range of sorted) {
    const previous = merged[merged.length - 1];
    if (previous && range.first <= previous.last + 1) previous.last = Math.max(previous.last, range.last);
    else merged.push({ ...range });
  }
  return merged;
}

/** Record numbers as ranges: [1, 2, 3, 7] → 1–3, 7. */
export function rangesOf(records: readonly number[]): RecordRange[] {
  return mergeRanges(records.map((record) => ({ first: record, last: record })));
}

/** `1001–1500, 2001 and 3 more` */
export function formatRanges(ranges: readonly RecordRange[], max = 8): string {
  const merged = mergeRanges(ranges);
  const shown = merged.slice(0, max).map(({ first, last }) => (first === last ? String(first) : `${first}–${last}`));
  const more = merged.length - shown.length;
  return more > 0 ? `${shown.join(', ')} and ${more} more` : shown.join(', ');
}
