import { TdsError } from '../../core/errors.js';
import { formatRanges, rangesOf } from './ranges.js';
import type { StopReason } from '../deliver/send-batches.js';
import type { PushSummary } from './summary.js';

const n = (value: number): string => value.toLocaleString('en-US');

/**
 * The error a push ends with when not everything is in: NOT_FOUND when the webhook vanished mid-run,
 * else PUSH_INCOMPLETE (exit 7) naming what is uncertain, rejected or not sent, and what to do next.
 */
export function incompleteError(input: { summary: PushSummary; stops: StopReason[] }): TdsError | undefined {
  const { summary, stops } = input;
  const { records } = summary;
  const refused = stops.find((stop): stop is Extract<StopReason, { kind: 'refused' }> => stop.kind === 'refused');
  const gaveUp = stops.find((stop): stop is Extract<StopReason, { kind: 'gave-up' }> => stop.kind === 'gave-up');
  const problems: string[] = [];
  const hints: string[] = [];

  if (records.uncertain > 0) {
    const reasons = [...new Set(summary.uncertain.map((batch) => batch.reason).filter(Boolean))].slice(0, 3).join('; ');
    const batches = summary.uncertain.map((batch) => batch.batch.split('.')[0]).filter((batch, i, all) => all.indexOf(batch) === i);
    const list = batches.length <= 8 ? batches.join(',') : 'B';
    problems.push(
      `${n(records.uncertain)} records are uncertain (records ${formatRanges(summary.uncertain)}, batch ${batches.slice(0, 8).join(', ')}${batches.length > 8 ? ' …' : ''}${reasons ? `: ${reasons}` : ''}): the webhook may have added them`,
    );
    hints.push(
      `check the table for records ${formatRanges(summary.uncertain)} (e.g. \`tds rows TABLE\`) before anything else, then run the same command with ` +
        `--resume --accept-uncertain ${list} for the batches whose records are there and --resume --resend-uncertain ${list} for those missing ` +
        `(each flag alone means every uncertain batch; --resume alone never re-sends them)`,
    );
  }
  if (records.rejected > 0) {
    problems.push(`${n(records.rejected)} records were rejected (records ${formatRanges(rangesOf(summary.rejectedRecords))})`);
    hints.push(
      summary.rejects
        ? `${summary.rejects} holds each rejected record with the reason`
        : 'pass --rejects FILE to save each rejected record with the reason',
    );
  }
  if (records.notSent === null || records.notSent > 0) {
    const why = refused?.detail ?? gaveUp?.detail;
    problems.push(
      `${records.notSent === null ? `the rest of ${summary.input}` : `${n(records.notSent)} records`} not sent${why ? ` (${why})` : ''}`,
    );
    if (records.uncertain === 0) hints.push('run the same command with --resume to send the rest; nothing already sent is sent again');
  }
  const wait = summary.wait;
  if (wait?.mode === 'visible' && !wait.complete) {
    problems.push(`only ${n(wait.appeared)} of ${n(wait.expected)} new rows were visible after ${wait.seconds.toFixed(0)} s`);
    hints.push('the webhook adds rows asynchronously and may still be working: check the row count again later; do not re-send');
  }
  if (wait?.mode === 'settled' && !wait.complete) {
    const unsettled = wait.expected - wait.settled;
    problems.push(
      `${n(unsettled)} of ${n(wait.expected)} rows had not settled after ${wait.seconds.toFixed(0)} s (${n(wait.expected - wait.visible)} not visible)` +
        (wait.output ? `; they are in ${wait.output.path} as they were` : ''),
    );
    hints.push('everything was sent: run the same command with --resume to wait again (nothing is sent twice), or raise --wait-timeout');
  }
  if (refused?.status === 404) {
    return new TdsError('NOT_FOUND', `the webhook ${summary.webhook} answered 404 part way: ${problems.join('; ')}`, {
      status: 404,
      hint: "the batches already sent are journaled; check the webhook URL in the table's settings, then run again with --resume",
    });
  }
  if (problems.length === 0) return undefined;
  return new TdsError('PUSH_INCOMPLETE', `push incomplete: ${problems.join('; ')}`, { hint: hints.join('; ') || undefined });
}
