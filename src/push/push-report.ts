import type { Context } from '../core/context.js';
import { TdsError } from '../core/errors.js';
import type { ValidationResult } from './validate-pass.js';
import type { StopReason } from './deliver/send-batches.js';
import type { ReadStats } from './input/input-record.js';
import { inputWarnings } from './input/read-input.js';
import { PushTally } from './plan/tally.js';
import { sourceName, type PushJob } from './push-job.js';
import { incompleteError } from './report/incomplete.js';
import { buildSummary, formatSummary, type PushSummary, type SummaryInput } from './report/summary.js';
import type { SendResult } from './send-pass.js';
import type { KeyLookups } from './key/key-lookups.js';
import type { WaitSummary } from './report/summary.js';

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

  /** How the input was read (a validation pass, or the sending pass of a streamed input). */
  read(stats: ReadStats): void {
    inputWarnings(stats).forEach((text) => this.warn(text));
  }

  dryRun(validation: ValidationResult, key?: KeyReport): void {
    this.print(this.summary({ read: validation.stats.records, tally: validation.tally, notSent: null, ...keyPart(key) }));
  }

  /** A checked file with nothing left to send (every batch dealt with before). */
  nothingToSend(validation: ValidationResult): void {
    if (this.job.journal.resume) {
      const source = sourceName(this.job.input);
      this.ctx.io.stderr.write(`nothing to send: every batch of ${source} was dealt with before (journal ${this.job.journal.path})\n`);
    }
    const summary = this.summary({ read: validation.stats.records, tally: validation.tally, notSent: 0, checkSeconds: validation.seconds });
    this.print(summary);
    const incomplete = incompleteError({ summary, stops: [] });
    if (incomplete) throw incomplete;
  }

  /** The summary of a push that sent, then the error it ends with, if any. */
  finish(sent: SendResult, validation: ValidationResult | undefined, wait: WaitSummary | undefined, key?: KeyReport): void {
    // a file's counts come from the checking pass: sending may have stopped part way
    const tally = PushTally.combine(validation?.tally ?? sent.scan, sent.sending);
    const notSent = validation ? validation.tally.toSend.records - sent.dealt : sent.exhausted ? tally.pending.records : null;
    const summary = this.summary({
      read: validation?.stats.records ?? sent.stats.records,
      tally,
      notSent,
      checkSeconds: validation?.seconds,
      sendSeconds: sent.seconds,
      ...(sent.flight ? { network: sent.flight } : {}),
      wait,
      ...keyPart(key),
    });
    this.print(summary);
    const failure = sent.stops.find((stop): stop is Extract<StopReason, { kind: 'failed' }> => stop.kind === 'failed');
    if (failure) throw failure.error;
    if (sent.stops.some((stop) => stop.kind === 'interrupted')) {
      this.ctx.io.stderr.write(
        'interrupted: the batches in flight finished and were journaled; run the same command with --resume to send the rest\n',
      );
      throw new TdsError('INTERRUPTED', 'interrupted');
    }
    if (this.ctx.signal.aborted) throw new TdsError('INTERRUPTED', 'interrupted while waiting for the rows (everything was sent)');
    const incomplete = incompleteError({ summary, stops: sent.stops });
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

  private print(summary: PushSummary): void {
    if (this.job.report.json) this.ctx.io.stdout.write(`${JSON.stringify(summary)}\n`);
    else this.ctx.io.stderr.write(formatSummary(summary));
  }
}

function keyPart(key: KeyReport | undefined): Pick<SummaryInput, 'key'> {
  return key ? { key: { field: key.field, column: key.column, lookup: key.lookup, lookupRequests: key.lookups.requests } } : {};
}
