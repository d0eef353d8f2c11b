import type { Context } from '../core/context.js';
import { UsageError } from '../core/errors.js';
import { tryLock, type ProcessLock } from '../core/process-lock.js';
import { resolveTable } from '../http/resolve-table.js';
import type { Table } from '../spec/index.js';
import { checkPass, type CheckResult } from './check-pass.js';
import { checkWebhook } from './deliver/check-webhook.js';
import { WebhookClient } from './deliver/webhook-client.js';
import { webhookLimiter } from './deliver/webhook-limiter.js';
import { journalConfirmed } from './journal/confirm-batches.js';
import type { JournalContents } from './journal/journal-entry.js';
import { journalHeaderFor } from './journal/journal-header.js';
import { priorJournal } from './journal/prior-journal.js';
import { JournalIndex } from './plan/resume-plan.js';
import { sourceName, type PushJob, type WaitSpec } from './push-job.js';
import { PushReport } from './push-report.js';
import { sendPass, type SendResult } from './send-pass.js';
import { waitForRows, type WaitResult } from './wait/wait-rows.js';

/** Rows show up in rowCount asynchronously; polling every 2 s stays far inside the read limits. */
const WAIT_POLL_MS = 2_000;

/**
 * `tds push`: the journal of an earlier run (--resume); the webhook checked (HEAD); a file read in
 * full and checked before anything is sent (stdin, pipes and files without --validate-first are
 * checked as they stream); the batches due sent and journaled; the new rows waited for (--wait);
 * the summary, and the error the push ends with.
 */
export async function runPush(ctx: Context, job: PushJob): Promise<void> {
  const lock = job.dryRun || !job.journal.path ? undefined : await lockJournal(job.journal.path);
  try {
    await push(ctx, job);
  } finally {
    await lock?.release();
  }
}

/** The journal belongs to one run at a time (two runs would both send what is left); the lock dies with the process. */
async function lockJournal(path: string): Promise<ProcessLock> {
  const lock = await tryLock(path);
  if (!lock) {
    throw new UsageError(`another tds push is using the journal ${path}; two runs at once would send batches twice`, {
      hint: 'wait until it ends, then run the same command with --resume if anything is left',
    });
  }
  return lock;
}

async function push(ctx: Context, job: PushJob): Promise<void> {
  const report = new PushReport(ctx, job);
  const prior = await priorJournal({ ...job.journal, dryRun: job.dryRun }, (journaled) =>
    journalHeaderFor(
      job.input,
      job.limits.maxObjects,
      job.delivery?.target ?? { shown: journaled.webhook.shown, fingerprint: journaled.webhook.sha256 },
    ),
  );
  const index = prior && new JournalIndex(prior.entries);
  if (job.dryRun) {
    const check = await checkPass(ctx, { ...job, index, progress: job.report.progress });
    report.read(check.stats);
    return report.dryRun(check);
  }
  const delivery = job.delivery;
  if (!delivery) throw new UsageError('no webhook given');
  if (job.input.streamed && !job.journal.path) {
    report.warn(
      `reading ${sourceName(job.input)} without --journal: if this push stops part way, it cannot be resumed (pass --journal FILE)`,
    );
  }
  const client = new WebhookClient({ url: delivery.target.url, connections: delivery.concurrency, timeoutMs: delivery.timeoutMs });
  const limiter = webhookLimiter(delivery.rate, delivery.rateScale);
  try {
    await checkWebhook({
      client,
      target: delivery.target,
      limiter,
      maxRetries: delivery.maxRetries,
      rateScale: delivery.rateScale,
      signal: ctx.signal,
      log: ctx.verbose,
    });
    // --wait --table: an unknown table fails now, before the input is read
    const table = job.wait && (await resolveTable(job.wait.client, job.wait.table));
    const check = job.input.streamed ? undefined : await checkFile(ctx, job, report, index, prior);
    if (check && check.tally.toSend.batches === 0) {
      if (job.journal.path && check.confirmed.length > 0) await journalConfirmed(job.journal.path, check.confirmed);
      return report.nothingToSend(check);
    }
    // the row count as close as possible to the first POST
    const baseline = table && job.wait && (await resolveTable(job.wait.client, table.id));
    const header = journalHeaderFor(job.input, job.limits.maxObjects, delivery.target, check?.stats);
    const sent = await sendPass(ctx, { ...job, index, header, checked: check !== undefined, ...job.report, delivery, client, limiter });
    warnAfterSending(report, job, sent, check);
    const wait = baseline && job.wait ? await waitAfterSending(ctx, job.wait, baseline, sent, delivery.rateScale) : undefined;
    report.finish(sent, check, wait);
  } finally {
    await client.close();
  }
}

/** The check pass of a file, with what it says about the input. */
async function checkFile(
  ctx: Context,
  job: PushJob,
  report: PushReport,
  index: JournalIndex | undefined,
  prior: JournalContents | undefined,
): Promise<CheckResult> {
  const check = await checkPass(ctx, { ...job, index, rejectsPath: job.report.rejectsPath, progress: job.report.progress });
  report.read(check.stats);
  if (prior?.header.input.sha256 && check.stats.sha256 && prior.header.input.sha256 !== check.stats.sha256) {
    report.warn(
      `${sourceName(job.input)} changed since the journal was written; every batch the journal records is unchanged, so the push goes on`,
    );
  }
  return check;
}

function warnAfterSending(report: PushReport, job: PushJob, sent: SendResult, check: CheckResult | undefined): void {
  const redact = job.delivery?.target.redact ?? ((text: string) => text);
  for (const message of sent.warnings) {
    report.warn(`the webhook answered 2xx with success: false ("${redact(message)}"); those batches count as sent`);
  }
  if (!check) report.read(sent.stats);
  else if (sent.exhausted && sent.stats.sha256 !== check.stats.sha256) {
    report.warn(`${sourceName(job.input)} changed while it was being pushed; the journal records exactly what was sent`);
  }
}

/** --wait: polls the table's rowCount until the rows sent are visible (an interrupt ends the wait quietly). */
async function waitAfterSending(
  ctx: Context,
  wait: WaitSpec,
  baseline: Table,
  sent: SendResult,
  rateScale: number,
): Promise<WaitResult | undefined> {
  if (sent.sending.sent.records === 0 || ctx.signal.aborted) return undefined;
  return waitForRows({
    client: wait.client,
    tableId: baseline.id,
    before: baseline.rowCount,
    expected: sent.sending.sent.records,
    timeoutMs: wait.timeoutMs,
    intervalMs: WAIT_POLL_MS / rateScale,
    signal: ctx.signal,
  }).catch((error: unknown) => {
    if (ctx.signal.aborted) return undefined;
    throw error;
  });
}
