import type { Context } from '../cli/context.js';
import { TdsError, UsageError } from '../cli/errors.js';
import type { ApiClient } from '../http/client.js';
import { resolveTable } from '../http/resolve-table.js';
import { WEBHOOK_MAX_BODY_BYTES } from '../spec/index.js';
import type { Batch, BatchLimits } from './batch.js';
import { checkWebhook } from './check-webhook.js';
import { incompleteError } from './incomplete.js';
import { JournalWriter } from './journal.js';
import { journalHeaderFor } from './journal-header.js';
import { planPass } from './plan-pass.js';
import { priorJournal } from './prior-journal.js';
import { inputWarnings, type ReadOptions } from './read-input.js';
import { JournalIndex, type UncertainPolicy } from './resume-plan.js';
import { CONFIRMED_REASON, entryOf, type StopReason } from './send.js';
import { sendPass } from './send-pass.js';
import { buildSummary, formatSummary, type PushSummary, type SummaryInput } from './summary.js';
import { PushTally } from './tally.js';
import { waitForRows, type WaitResult } from './wait-rows.js';
import { WebhookClient } from './webhook-client.js';
import { webhookLimiter } from './webhook-limiter.js';
import type { WebhookTarget } from './webhook-target.js';

export interface PushRunOptions {
  /** a file path, or `-` for stdin */
  input: string;
  /** read once, validated as it streams (stdin, a pipe, a file without --validate-first) */
  streamed: boolean;
  read: ReadOptions;
  batchSize: number;
  concurrency: number;
  /** requests a second */
  rate: number;
  journalPath?: string;
  resume: boolean;
  /** uncertain batches of an earlier run: left alone, sent again (--resend-uncertain) or confirmed (--accept-uncertain) */
  uncertain: UncertainPolicy;
  rejectsPath?: string;
  dryRun: boolean;
  json: boolean;
  /** required unless dryRun */
  target?: WebhookTarget;
  timeoutMs: number;
  maxRetries: number;
  rateScale: number;
  wait?: { table: string; timeoutMs: number; client: ApiClient };
  /** a progress line on stderr when it is a terminal (off with --verbose, whose lines would break it) */
  progress: boolean;
  /** TDS_PUSH_REPORT_USAGE=1: peak memory and CPU time in the summary (for the benchmark) */
  reportUsage: boolean;
}

/** Rows show up in rowCount asynchronously; polling every 2 s stays far inside the read limits. */
const WAIT_POLL_MS = 2_000;

/**
 * `tds push`: check the webhook (HEAD); read and batch a file once to validate it (and, on --resume,
 * to check every batch the journal knows) before anything is sent; then read it again and send,
 * journaling every batch. Stdin, pipes and files (unless --validate-first) are read once, validated as they stream.
 */
export async function runPush(ctx: Context, options: PushRunOptions): Promise<void> {
  const started = performance.now();
  const seconds = (): number => (performance.now() - started) / 1000;
  const source = options.input === '-' ? 'stdin' : options.input;
  const limits: BatchLimits = { maxObjects: options.batchSize, maxBytes: WEBHOOK_MAX_BODY_BYTES };
  const warn = (text: string): void => void ctx.io.stderr.write(`${ctx.io.color.yellow('warning:')} ${text}\n`);
  const prior = await priorJournal(options);
  const index = prior ? new JournalIndex(prior.entries) : undefined;
  const base = {
    input: source,
    format: options.read.format,
    webhook: options.target?.shown,
    dryRun: options.dryRun,
    resumed: options.resume,
    journal: options.dryRun && !options.resume ? undefined : options.journalPath,
    rejects: options.rejectsPath,
    reportUsage: options.reportUsage,
  };
  const finish = (summary: PushSummary): void => {
    if (options.json) ctx.io.stdout.write(`${JSON.stringify(summary)}\n`);
    else ctx.io.stderr.write(formatSummary(summary));
  };

  if (options.dryRun) {
    const plan = await planPass(ctx, options, limits, index);
    inputWarnings(plan.stats).forEach(warn);
    return finish(buildSummary({ ...base, read: plan.stats.records, tally: plan.tally, notSent: null, seconds: seconds() }));
  }

  const target = options.target;
  if (!target) throw new UsageError('no webhook given');
  if (options.streamed && !options.journalPath) {
    warn(`reading ${source} without --journal: if this push stops part way, it cannot be resumed (pass --journal FILE)`);
  }
  const client = new WebhookClient({ url: target.url, connections: options.concurrency, timeoutMs: options.timeoutMs });
  const limiter = webhookLimiter(options.rate, options.rateScale);
  try {
    await checkWebhook({
      client,
      target,
      limiter,
      maxRetries: options.maxRetries,
      rateScale: options.rateScale,
      signal: ctx.signal,
      log: ctx.verbose,
    });
    // --wait --table: an unknown table fails now, before the input is read
    const table = options.wait ? await resolveTable(options.wait.client, options.wait.table) : undefined;

    const plan = options.streamed ? undefined : await planPass(ctx, options, limits, index);
    if (plan) inputWarnings(plan.stats).forEach(warn);
    if (prior?.header.input.sha256 && plan?.stats.sha256 && prior.header.input.sha256 !== plan.stats.sha256) {
      warn(`${source} changed since the journal was written; every batch the journal records is unchanged, so the push goes on`);
    }
    if (plan && plan.tally.toSend.batches === 0) {
      if (options.journalPath && plan.confirmed.length > 0) await journalConfirmed(options.journalPath, plan.confirmed);
      if (options.resume)
        ctx.io.stderr.write(`nothing to send: every batch of ${source} was dealt with before (journal ${options.journalPath})\n`);
      const summary = buildSummary({
        ...base,
        read: plan.stats.records,
        tally: plan.tally,
        notSent: 0,
        seconds: seconds(),
        checkSeconds: plan.seconds,
      });
      finish(summary);
      const incomplete = incompleteError({ summary, stops: [] });
      if (incomplete) throw incomplete;
      return;
    }

    // the row count as close as possible to the first POST
    const baseline = table && options.wait ? await resolveTable(options.wait.client, table.id) : undefined;
    const header = journalHeaderFor(options, target, plan?.stats);
    const sent = await sendPass(ctx, options, { checked: plan !== undefined, limits, index, header, prior, client, limiter, target });
    for (const message of sent.warnings)
      warn(`the webhook answered 2xx with success: false ("${target.redact(message)}"); those batches count as sent`);
    if (!plan) inputWarnings(sent.stats).forEach(warn);
    else if (sent.exhausted && sent.stats.sha256 !== plan.stats.sha256)
      warn(`${source} changed while it was being pushed; the journal records exactly what was sent`);

    let wait: WaitResult | undefined;
    if (options.wait && baseline && sent.sending.sent.records > 0 && !ctx.signal.aborted) {
      wait = await waitForRows({
        client: options.wait.client,
        tableId: baseline.id,
        before: baseline.rowCount,
        expected: sent.sending.sent.records,
        timeoutMs: options.wait.timeoutMs,
        intervalMs: WAIT_POLL_MS / options.rateScale,
        signal: ctx.signal,
      }).catch((error: unknown) => {
        if (ctx.signal.aborted) return undefined;
        throw error;
      });
    }

    // a file's counts come from the checking pass: sending may have stopped part way
    const tally = PushTally.combine(plan?.tally ?? sent.scan, sent.sending);
    const notSent = plan ? plan.tally.toSend.records - sent.dealt : sent.exhausted ? tally.pending.records : null;
    const summary = buildSummary({
      ...base,
      read: plan?.stats.records ?? sent.stats.records,
      tally,
      notSent,
      seconds: seconds(),
      checkSeconds: plan?.seconds,
      sendSeconds: sent.sendSeconds,
      wait,
    } satisfies SummaryInput);
    finish(summary);

    const failure = sent.stops.find((stop): stop is Extract<StopReason, { kind: 'failed' }> => stop.kind === 'failed');
    if (failure) throw failure.error;
    if (sent.stops.some((stop) => stop.kind === 'interrupted')) {
      ctx.io.stderr.write(
        'interrupted: the batches in flight finished and were journaled; run the same command with --resume to send the rest\n',
      );
      throw new TdsError('INTERRUPTED', 'interrupted');
    }
    if (ctx.signal.aborted) throw new TdsError('INTERRUPTED', 'interrupted while waiting for the rows (everything was sent)');
    const incomplete = incompleteError({ summary, stops: sent.stops });
    if (incomplete) throw incomplete;
  } finally {
    await client.close();
  }
}

/** Records uncertain batches the user found in the table (--accept-uncertain) as accepted, when nothing else is sent. */
async function journalConfirmed(path: string, batches: readonly Batch[]): Promise<void> {
  const journal = JournalWriter.reopen(path);
  try {
    for (const batch of batches) await journal.append(entryOf(batch, 'accepted', { reason: CONFIRMED_REASON }));
  } finally {
    await journal.close();
  }
}
