import { type Context, TdsError } from '../../core/index.js';
import type { ValidationResult, SendResult } from '../input-reads.js';
import type { StopReason } from '../deliver/classify.js';
import type { ReadStats } from '../input/input-record.js';
import { inputWarnings } from '../input/read-input.js';
import { PushTally } from '../plan/tally.js';
import { sourceName, type PushJob } from '../push-job.js';
import { buildSummary, formatSummary, type PushSummary, type SummaryInput, formatRanges, rangesOf } from './summary.js';
import type { WaitSummary } from '../wait/wait-rows.js';
import type { DroppedRows } from '../wait/dropped-rows.js';
import type { KeyLookups } from '../key/key-lookups.js';
import { journalFolder } from '../journal/journal-folder.js';
import { JOURNAL_KEEP_DAYS } from '../options.js';
import { dirname } from 'node:path';

/** --key: what the summary tells of the keys. */
export interface KeyReport {
  field: string;
  column: string;
  /** --skip-existing: how keys were looked up */
  lookup: string | null;
  lookups: Pick<KeyLookups, 'requests'>;
}

/** Warnings on the way, the summary at the end (stderr, or JSON on stdout), and the error the push ends with. */
export class PushReport {
  private readonly started = performance.now();

  constructor(
    private readonly ctx: Context,
    private readonly job: PushJob,
  ) {}

  warn(text: string): void {
    this.ctx.io.stderr.write(`${this.ctx.io.color.yellow('warning:')} ${text}\n`);
  }

  note(text: string): void {
    this.ctx.io.stderr.write(`${text}\n`);
  }

  /** How the input was read (a validating read, or the sending read of a streamed input). */
  read(stats: ReadStats): void {
    inputWarnings(stats).forEach((text) => this.warn(text));
  }

  dryRun(validation: ValidationResult, key?: KeyReport): void {
    this.print(this.summary({ read: validation.stats.records, tally: validation.tally, notSent: null, ...keyPart(key) }), false);
  }

  /** A checked file with nothing left to send (every batch dealt with before). */
  nothingToSend(validation: ValidationResult): void {
    if (this.job.journal.resume) {
      const source = sourceName(this.job.input);
      this.ctx.io.stderr.write(`nothing to send: every batch of ${source} was dealt with before (journal ${this.job.journal.path})\n`);
    }
    const summary = this.summary({ read: validation.stats.records, tally: validation.tally, notSent: 0, checkSeconds: validation.seconds });
    const incomplete = incompleteError({ summary, stops: [] });
    this.print(summary, incomplete !== undefined);
    if (incomplete) throw incomplete;
  }

  /** The summary of a push that sent, then the error it ends with, if any. */
  finish(
    sent: SendResult,
    validation: ValidationResult | undefined,
    wait: WaitSummary | undefined,
    key?: KeyReport,
    dropped?: DroppedRows,
  ): void {
    // a file's counts come from the checking read: sending may have stopped part way
    const tally = PushTally.combine(validation?.tally ?? sent.scan, sent.sending);
    const notSent = validation ? validation.tally.toSend.records - sent.dealt : sent.exhausted ? tally.unsent.records : null;
    const summary = this.summary({
      read: validation?.stats.records ?? sent.stats.records,
      tally,
      notSent,
      checkSeconds: validation?.seconds,
      sendSeconds: sent.seconds,
      ...(sent.flight ? { network: sent.flight } : {}),
      ...(sent.budget
        ? {
            budget: {
              budget: sent.budget.budget,
              used: sent.budget.budget - sent.budget.left,
              left: sent.budget.left,
              ...(sent.budget.webhooks ? { webhooks: sent.budget.webhooks } : {}),
            },
          }
        : {}),
      wait,
      ...keyPart(key),
      ...(dropped ? { dropped } : {}),
    });
    const failure = sent.stops.find((stop): stop is Extract<StopReason, { kind: 'failed' }> => stop.kind === 'failed');
    const interrupted = sent.stops.some((stop) => stop.kind === 'interrupted');
    const incomplete = incompleteError({ summary, stops: sent.stops });
    this.print(summary, Boolean(failure || interrupted || this.ctx.signal.aborted || incomplete));
    if (failure) throw failure.error;
    if (interrupted) {
      this.ctx.io.stderr.write(
        'interrupted: the batches in flight finished and were journaled; run the same command with --resume to send the rest\n',
      );
      throw new TdsError('INTERRUPTED', 'interrupted');
    }
    if (this.ctx.signal.aborted) throw new TdsError('INTERRUPTED', 'interrupted while waiting for the rows (everything was sent)');
    if (incomplete) throw incomplete;
  }

  private summary(
    counts: Omit<SummaryInput, 'input' | 'format' | 'webhook' | 'dryRun' | 'resumed' | 'journal' | 'rejects' | 'seconds'>,
  ): PushSummary {
    const { job } = this;
    return buildSummary({
      input: sourceName(job.input),
      format: job.input.read.format,
      webhook: job.delivery?.target.displayUrl,
      dryRun: job.dryRun,
      resumed: job.journal.resume,
      journal: job.dryRun && !job.journal.resume ? undefined : job.journal.path,
      rejects: job.report.rejectsPath,
      seconds: (performance.now() - this.started) / 1000,
      ...counts,
    });
  }

  /** The summary; the journal's line says whether it is kept for --resume or, complete, goes after a while (journal-folder.ts). */
  private print(summary: PushSummary, journalKept: boolean): void {
    const note = summary.journal && !summary.dryRun ? this.journalNote(summary.journal, journalKept) : undefined;
    if (!this.job.report.json) return void this.ctx.io.stderr.write(formatSummary(summary, note));
    this.ctx.io.stdout.write(`${JSON.stringify(summary)}\n`);
    if (journalKept && note) this.ctx.io.stderr.write(`journal: ${summary.journal} (${note})\n`);
  }

  private journalNote(path: string, kept: boolean): string | undefined {
    if (kept) return 'kept: the same command with --resume goes on from it';
    const byDefault = this.job.journal.byDefault;
    const inDataFolder = byDefault !== undefined && dirname(path) === journalFolder(byDefault.dataDir);
    return inDataFolder ? `complete: removed once untouched for ${JOURNAL_KEEP_DAYS} days` : undefined;
  }
}

function keyPart(key: KeyReport | undefined): Pick<SummaryInput, 'key'> {
  return key ? { key: { field: key.field, column: key.column, lookup: key.lookup, lookupRequests: key.lookups.requests } } : {};
}

const n = (value: number): string => value.toLocaleString('en-US');

/** What a push stopped by the webhook's budget says (the counts sent and left, and how to go on); whether it was. */
function budgetSpent(summary: PushSummary, stops: StopReason[], said: { problems: string[]; hints: string[] }): boolean {
  const spent = stops.find((stop): stop is Extract<StopReason, { kind: 'budget' }> => stop.kind === 'budget');
  if (!spent) return false;
  const { records } = summary;
  const left = records.notSent === null ? `the rest of ${summary.input}` : `${n(records.notSent)} records`;
  const webhooks = summary.budget?.webhooks;
  said.problems.push(
    webhooks
      ? `the ${webhooks} webhooks of the list have used their budgets of ${n(spent.budget)} submissions each (webhook-budget): ${n(records.sent)} records sent, ${left} left to send`
      : `the webhook ${summary.webhook} has used its budget of ${n(spent.budget)} submissions (webhook-budget): ${n(records.sent)} records sent, ${left} left to send`,
  );
  said.hints.push(
    `a webhook takes ${n(spent.budget)} submissions in its lifetime (deleting rows gives none back): create a new webhook on the table, ` +
      `then run the same command with --webhook NEW --resume (NEW: its URL, or @NAME saved with \`tds config set webhook.NAME\`; ` +
      `or add it to the saved list with \`tds config set webhook.NAME --add\` and run the same command with --resume); ` +
      `the journal carries on where this webhook stopped and nothing is sent twice`,
  );
  return true;
}

/** What the wait for the rows found: rows dropped by the service, rows not visible yet, rows not settled. */
function waitProblems(summary: PushSummary, said: { problems: string[]; hints: string[] }): void {
  const { problems, hints } = said;
  const wait = summary.wait;
  const dropped =
    summary.dropped ??
    (wait?.mode === 'visible' && wait.dropped
      ? { count: wait.dropped, records: wait.droppedRecords ?? [], cause: wait.droppedCause ?? '' }
      : undefined);
  if (dropped) {
    problems.push(
      `${n(dropped.count)} records were accepted and never shown: dropped by the service (records ${formatRanges(dropped.records)}); likely cause: ${dropped.cause}`,
    );
    hints.push(
      `${summary.rejects ? `${summary.rejects} lists them; ` : 'pass --rejects FILE to list them; '}make room (a new webhook, or rows deleted from a full table), then push those records again`,
    );
  } else if (wait?.mode === 'visible' && !wait.complete) {
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
}

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
  const spent = budgetSpent(summary, stops, { problems, hints });

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
  if (!spent && (records.notSent === null || records.notSent > 0)) {
    const why = refused?.detail ?? gaveUp?.detail;
    problems.push(
      `${records.notSent === null ? `the rest of ${summary.input}` : `${n(records.notSent)} records`} not sent${why ? ` (${why})` : ''}`,
    );
    if (records.uncertain === 0) hints.push('run the same command with --resume to send the rest; nothing already sent is sent again');
  }
  waitProblems(summary, { problems, hints });
  if (refused?.status === 404) {
    return new TdsError('NOT_FOUND', `the webhook ${summary.webhook} answered 404 part way: ${problems.join('; ')}`, {
      status: 404,
      hint: "the batches already sent are journaled; check the webhook URL in the table's settings, then run again with --resume",
    });
  }
  if (problems.length === 0) return undefined;
  return new TdsError('PUSH_INCOMPLETE', `push incomplete: ${problems.join('; ')}`, { hint: hints.join('; ') || undefined });
}
