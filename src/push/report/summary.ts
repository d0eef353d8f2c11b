import { formatRanges, rangesOf } from './ranges.js';
import type { PushTally, UncertainBatch } from '../plan/tally.js';
import type { WaitResult } from '../wait/wait-rows.js';

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
  /** from the first request to the last answer */
  sendSeconds?: number;
  /** records sent (dry run: read) per second of the whole run */
  recordsPerSecond: number;
  uncertain: UncertainBatch[];
  /** record numbers of rejected records (the first 1000) */
  rejectedRecords: number[];
  journal: string | null;
  rejects: string | null;
  wait?: WaitResult;
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
  journal?: string;
  rejects?: string;
  wait?: WaitResult;
}

export function buildSummary(input: SummaryInput): PushSummary {
  const { tally } = input;
  const moved = input.dryRun ? input.read : tally.sent.records;
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
    recordsPerSecond: input.seconds > 0 ? Math.round(moved / input.seconds) : 0,
    uncertain: tally.uncertain,
    rejectedRecords: tally.rejected.sample,
    journal: input.journal ?? null,
    rejects: input.rejects ?? null,
    ...(input.wait ? { wait: input.wait } : {}),
  };
}

const n = (value: number): string => value.toLocaleString('en-US');
/** `1 batch`, `2 batches`. */
const count = (value: number, one: string, many: string): string => `${n(value)} ${value === 1 ? one : many}`;

/** The human summary (stderr). */
export function formatSummary(summary: PushSummary): string {
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
  const rejected = `${n(records.rejected)}${records.tooLarge ? ` (${n(records.tooLarge)} too large)` : ''}: records ${formatRanges(rangesOf(summary.rejectedRecords))}`;
  row('rejected', records.rejected === 0 ? '0' : `${rejected}${summary.rejects ? ` → ${summary.rejects}` : ''}`);
  const batchList = summary.uncertain.map((batch) => batch.batch).join(', ');
  row(
    'uncertain',
    records.uncertain === 0 ? '0' : `${n(records.uncertain)}: records ${formatRanges(summary.uncertain)} (batch ${batchList})`,
  );
  if (!summary.dryRun && records.notSent !== 0)
    row('not sent yet', records.notSent === null ? `the rest of ${summary.input} (not read)` : n(records.notSent));
  const phases = [
    summary.checkSeconds !== undefined && !summary.dryRun ? `${summary.checkSeconds.toFixed(1)} s checking the input` : undefined,
    summary.sendSeconds !== undefined ? `${summary.sendSeconds.toFixed(1)} s sending` : undefined,
  ].filter(Boolean);
  row('time', `${summary.seconds.toFixed(1)} s${phases.length ? ` (${phases.join(', ')})` : ''}, ${n(summary.recordsPerSecond)} records/s`);
  if (summary.wait)
    row('rows visible', `${n(summary.wait.appeared)} of ${n(summary.wait.expected)} new rows after ${summary.wait.seconds.toFixed(1)} s`);
  if (summary.journal) row('journal', summary.journal);
  return `${lines.join('\n')}\n`;
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
