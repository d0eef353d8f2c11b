import { type Context, TdsError, UsageError, tryLock, type ProcessLock } from '../core/index.js';
import { WebhookLedger } from './ledger/index.js';
import { resolveTable, type RateLimiter } from '../http/index.js';
import type { Table } from '../service/index.js';
import { validateInput, type ValidationResult, emptyResult, sendInput, type KeyedSending, type SendResult } from './input-reads.js';
import { checkWebhook } from './deliver/check-webhook.js';
import { WebhookClient, webhookLimiter, type WireResult } from './deliver/webhook-client.js';
import { FlightControl, MAX_IN_FLIGHT } from './deliver/in-flight.js';
import { prepareKeyed, type KeyedPush } from './key/keyed-push.js';
import { PushedKeys } from './key/record-key.js';
import { KeyReconciler } from './key/reconcile.js';
import { TableLock } from './key/table-lock.js';
import { journalCompleted, journalConfirmed } from './journal/journal-writer.js';
import { type JournalContents, type JournalHeader, journalHeaderFor } from './journal/journal-format.js';
import { defaultJournalPath, journalExists, journalFolder, prepareJournalFolder } from './journal/journal-folder.js';
import { priorJournal } from './journal/prior-journal.js';
import { JournalIndex } from './plan/resume-plan.js';
import { sourceName, type DeliveryOptions, type JournalOptions, type PushJob, pushTimings, type PushTimings } from './push-job.js';
import { PushReport, type KeyReport } from './report/push-report.js';
import { waitAfterSending, type WaitSummary } from './wait/wait-rows.js';
import { rangesOf } from './report/summary.js';
import { appendFile } from 'node:fs/promises';

// `tds push` run (index.ts states push/'s surface): the webhook checked, then the two reads of the input
// (input-reads.ts) through the stages, the folders: input/ → journal/ → plan/ → key/ → deliver/ → report/, wait/.

interface WebhookSession {
  delivery: DeliveryOptions;
  timings: PushTimings;
  client: WebhookClient;
  limiter: RateLimiter;
  flight: FlightControl;
}

/**
 * `tds push`: the webhook checked (HEAD) before anything else; the journal of an earlier run
 * (--resume); with --key, the table and its key column; a file read in full and checked before
 * anything is sent (stdin, pipes and files without --validate-first are checked as they stream); the
 * batches due sent and journaled; the new rows waited for (--wait); the summary, and the error the
 * push ends with.
 */
export async function runPush(ctx: Context, job: PushJob): Promise<void> {
  if (job.dryRun)
    return dryRun(
      ctx,
      await continuedByKey({ ...job, journal: { ...job.journal, path: await journalPathOf(ctx, job.journal, job.delivery) } }),
    );
  const delivery = job.delivery;
  if (!delivery) throw new UsageError('no webhook given');
  const session = openSession(ctx, delivery);
  try {
    // an unknown webhook exits 4 before any journal is read
    await checkTarget(ctx, session);
    if (job.journal.byDefault) await prepareJournalFolder(job.journal.byDefault.dataDir);
    const path = await journalPathOf(ctx, job.journal, delivery);
    const lock = path ? await lockJournal(path) : undefined;
    try {
      await push(ctx, await continuedByKey({ ...job, journal: { ...job.journal, path } }), session);
      // only a push that ended with nothing left to do (exit 0) marks its journal, which may then go after a while
      if (path)
        await journalCompleted(path).catch((error: unknown) => ctx.verbose(`could not mark the journal complete: ${String(error)}`));
    } finally {
      await lock?.release();
    }
  } finally {
    await session.client.close();
  }
}

/** `tds push --check`: the webhook checked (HEAD) as a push checks it first, and nothing sent. */
export async function checkWebhookExists(ctx: Context, delivery: DeliveryOptions, options: { json: boolean }): Promise<void> {
  const session = openSession(ctx, delivery);
  try {
    await checkTarget(ctx, session);
  } finally {
    await session.client.close();
  }
  const shown = delivery.target.displayUrl;
  if (options.json) ctx.io.stdout.write(`${JSON.stringify({ webhook: shown, exists: true })}\n`);
  else ctx.io.stderr.write(`webhook exists: ${shown}\n`);
}

/** The webhook's client, limiter, timings and in-flight rule, built once from the delivery options. */
function openSession(ctx: Context, delivery: DeliveryOptions): WebhookSession {
  const { rate, concurrency } = delivery;
  const timings = pushTimings(delivery.rateScale, delivery.maxRetries);
  const flight = new FlightControl({ rate, windowMs: timings.webhookWindowMs, ceiling: concurrency }, ctx.verbose);
  const posted = { onPosted: (result: WireResult) => flight.note(result), log: ctx.verbose };
  const client = new WebhookClient({ ...delivery, connections: concurrency ?? MAX_IN_FLIGHT, ...posted });
  const limiter = webhookLimiter(delivery.rate, timings.webhookWindowMs);
  return { delivery, timings, client, limiter, flight };
}

/** The webhook's HEAD check; its round trip is the in-flight rule's first guess. */
async function checkTarget(ctx: Context, { delivery, client, limiter, timings, flight }: WebhookSession): Promise<void> {
  flight.noteCheck(
    await checkWebhook({ client, target: delivery.target, limiter, retry: timings.retry, signal: ctx.signal, log: ctx.verbose }),
  );
}

/**
 * --journal FILE, or the journal of a file input for this webhook in tds's data folder; one an earlier
 * release kept beside the input is still used, and said.
 */
async function journalPathOf(ctx: Context, spec: JournalOptions, delivery: DeliveryOptions | undefined): Promise<string | undefined> {
  if (spec.path !== undefined || spec.byDefault === undefined) return spec.path;
  const { input, dataDir } = spec.byDefault;
  const webhook = spec.webhook ?? delivery?.target;
  // a dry run without a webhook can only look for the first release's journal
  if (!webhook) return `${input}.tds-journal`;
  const place = await defaultJournalPath(input, webhook.fingerprint, dataDir);
  if (place.beside) {
    ctx.io.stderr.write(
      `using the journal of an earlier push beside the input, where earlier releases kept journals: ${place.path} (new pushes keep theirs in ${journalFolder(dataDir)})\n`,
    );
  }
  return place.path;
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

/**
 * With --key the key is the record's identity: an earlier push's journal is continued whether or not
 * --resume is given (a finished push's sends nothing again, a grown input only its new records).
 */
async function continuedByKey(job: PushJob): Promise<PushJob> {
  if (!job.key || job.journal.resume || !job.journal.path || !(await journalExists(job.journal.path))) return job;
  return { ...job, journal: { ...job.journal, resume: true } };
}

/** The journal of an earlier run (--resume), checked to be of this push. */
function readPrior(job: PushJob, keyed: KeyedPush | undefined): Promise<JournalContents | undefined> {
  return priorJournal({ ...job.journal, dryRun: job.dryRun, byKey: keyed !== undefined }, (journaled) =>
    headerOf(
      job,
      job.journal.webhook ?? job.delivery?.target ?? { displayUrl: journaled.webhook.shown, fingerprint: journaled.webhook.sha256 },
      keyed,
    ),
  );
}

function headerOf(
  job: PushJob,
  target: { displayUrl: string; fingerprint: string },
  keyed: KeyedPush | undefined,
  validation?: ValidationResult,
): JournalHeader {
  const key = keyed && {
    field: keyed.job.spec.field,
    compare: keyed.column.field.type === 'number' ? ('number' as const) : ('text' as const),
  };
  return journalHeaderFor({ input: job.input, batchSize: job.limits.maxObjects, target, stats: validation?.stats, key });
}

async function dryRun(ctx: Context, job: PushJob): Promise<void> {
  const report = new PushReport(ctx, job);
  const keyed = job.key && (await prepareKeyed(job.key));
  const prior = await readPrior(job, keyed);
  const keys = new PushedKeys();
  const validation = await validateInput(ctx, {
    ...job,
    index: prior && new JournalIndex(prior.entries),
    progress: job.report.progress,
    ...(keyed ? { keyed: { push: keyed, keys } } : {}),
  });
  report.read(validation.stats);
  const lookup = keyed?.job.skipExisting ? await existingPlanText(keyed, keys.sample(1000), validation.tally.toSend.records) : null;
  report.dryRun(validation, keyed && keyReport(keyed, lookup));
  await refuseOverBudget(job.delivery, validation.tally.toSend.records);
}

/** --dry-run: a push whose records exceed what the webhook has left of its budget is refused up front (exit 7). */
async function refuseOverBudget(delivery: DeliveryOptions | undefined, records: number): Promise<void> {
  const budget = delivery?.ledger?.budget;
  if (!delivery?.ledger || budget === undefined) return;
  const count = await WebhookLedger.at(delivery.ledger.dir, delivery.target).count();
  const left = Math.max(0, budget - count.submissions - count.uncertain);
  if (records <= left) return;
  const n = (value: number): string => value.toLocaleString('en-US');
  throw new TdsError(
    'PUSH_INCOMPLETE',
    `the webhook ${delivery.target.displayUrl} has ${n(left)} of its ${n(budget)} submissions left (webhook-budget): this push would send ${n(records)}, so it would stop after ${n(left)} and leave ${n(records - left)}`,
    {
      hint: `a webhook takes ${n(budget)} submissions in its lifetime (deleting rows gives none back): send the first ${n(left)} here, then create a new webhook on the table and run the same command with --webhook NEW --resume`,
    },
  );
}

async function push(ctx: Context, job: PushJob, session: WebhookSession): Promise<void> {
  const report = new PushReport(ctx, job);
  const keyed = job.key && (await prepareKeyed(job.key));
  const prior = await readPrior(job, keyed);
  const index = prior && new JournalIndex(prior.entries);
  if (job.input.streamed && !job.journal.path) {
    report.warn(
      `reading ${sourceName(job.input)} without --journal: if this push stops part way, it cannot be resumed (pass --journal FILE)`,
    );
  }
  // --wait --table: an unknown table fails now, before the input is read
  const table = keyed?.table ?? (job.wait && (await resolveTable(job.wait.client, job.wait.table)));
  const validationKeys = new PushedKeys();
  const validation = job.input.streamed ? undefined : await validateFile(ctx, job, report, { index, prior, keyed, keys: validationKeys });
  const nothing = validation !== undefined && validation.tally.toSend.batches === 0;
  if (nothing && job.journal.path && validation.confirmed.length > 0) await journalConfirmed(job.journal.path, validation.confirmed);
  if (nothing && !job.wait?.settled) return report.nothingToSend(validation);
  if (nothing) report.note(`nothing to send: every batch of ${sourceName(job.input)} was dealt with before`);
  // one push by key into a table at a time on this machine, from before its lookups until its rows show
  const lock = keyed && !nothing ? await lockTable(ctx, job, keyed, session.timings.intake.windowMs) : undefined;
  try {
    await sendAndWait(ctx, job, session, { report, keyed, table, index, validation, validationKeys, lock });
  } finally {
    await lock?.release({ visible: false, lastRequestAt: Date.now() });
  }
}

interface Prepared {
  report: PushReport;
  keyed: KeyedPush | undefined;
  table: Table | undefined;
  index: JournalIndex | undefined;
  validation: ValidationResult | undefined;
  validationKeys: PushedKeys;
  lock: TableLock | undefined;
}

/** The sending read (the table's lock released once this run's rows show), the wait, the summary. */
async function sendAndWait(ctx: Context, job: PushJob, session: WebhookSession, prepared: Prepared): Promise<void> {
  const { report, keyed, table, index, validation } = prepared;
  // the row count as close as possible to the first POST
  const baseline =
    table && job.wait ? await resolveTable(job.wait.client, table.id) : keyed && (await resolveTable(keyed.job.client, keyed.table.id));
  if (baseline) warnNearCeiling(report, job, baseline, validation?.tally.toSend.records);
  const began = Date.now();
  const reconciler =
    keyed &&
    new KeyReconciler({
      lookups: keyed.lookups,
      field: keyed.job.spec.field,
      intake: session.timings.intake,
      signal: ctx.signal,
      log: ctx.verbose,
    });
  if (reconciler && baseline) reconciler.begin(baseline.rowCount);
  const sendKeys = new PushedKeys();
  const lookup = { text: null as string | null };
  const sent =
    validation && validation.tally.toSend.batches === 0
      ? nothingSent(validation)
      : await sendInput(ctx, {
          ...job,
          index,
          header: headerOf(job, job.journal.webhook ?? session.delivery.target, keyed, validation),
          ...(table ? { tableName: table.name } : {}),
          checked: validation !== undefined,
          ...job.report,
          delivery: session.delivery,
          client: session.client,
          limiter: session.limiter,
          flight: session.flight,
          retry: session.timings.retry,
          ...(keyed && reconciler ? { keyed: keyedSending(ctx, { push: keyed, reconciler, keys: sendKeys }, validation, lookup) } : {}),
        });
  await prepared.lock?.release({ visible: sent.stops.length === 0, lastRequestAt: sent.lastRequestAt });
  warnAfterSending(report, job, sent, validation);
  const keys = validation ? prepared.validationKeys : sendKeys;
  keys.rejectAll(validation ? sendKeys : prepared.validationKeys);
  // the rows this run added are the newest: read down to its start, on the service's clock
  const since = reconciler?.serviceTimeBefore(began);
  const recent =
    !index && sent.sending.existing === 0 && baseline && since !== undefined ? { since, rowsBefore: baseline.rowCount } : undefined;
  const wait = baseline
    ? await waitAfterSending(ctx, job, {
        baseline,
        sent,
        keyed,
        keys,
        recent,
        pollMs: session.timings.waitPollMs,
        intakeWindowMs: session.timings.intake.windowMs,
      })
    : undefined;
  if (wait?.mode === 'visible' && wait.dropped) await noteDropped(job, wait, sent);
  report.finish(sent, validation, wait, keyed && keyReport(keyed, lookup.text));
}

/** A table near its row ceiling (table-capacity) is warned about before pushing, with how many records fit. */
function warnNearCeiling(report: PushReport, job: PushJob, table: Table, toSend: number | undefined): void {
  const capacity = job.delivery?.ledger?.capacity;
  if (capacity === undefined) return;
  const fits = Math.max(0, capacity - table.rowCount);
  const near = table.rowCount >= capacity * NEAR_CEILING;
  if (!near && (toSend === undefined || toSend <= fits)) return;
  const n = (value: number): string => value.toLocaleString('en-US');
  const sending = toSend === undefined ? '' : ` of the ${n(toSend)} to send`;
  report.warn(
    `table "${table.name}" holds ${n(table.rowCount)} rows of its ceiling of ${n(capacity)} (table-capacity): ${n(Math.min(fits, toSend ?? fits))} records${sending} fit; the service silently drops rows past it`,
  );
}

/** A table this full is warned about whatever the push's size. */
const NEAR_CEILING = 0.9;

/**
 * The rows the webhook took in and the table never showed: the last ones taken in (the service drops from
 * where a webhook's budget or a table's rows ran out), named with the likely cause and written to --rejects.
 */
async function noteDropped(job: PushJob, wait: Extract<WaitSummary, { mode: 'visible' }>, sent: SendResult): Promise<void> {
  const dropped = sent.acceptedRecords.slice(-(wait.dropped ?? 0)).sort((a, b) => a - b);
  wait.droppedRecords = rangesOf(dropped);
  const ledger = job.delivery?.ledger;
  const n = (value: number): string => value.toLocaleString('en-US');
  const count = ledger && job.delivery ? await WebhookLedger.at(ledger.dir, job.delivery.target).count() : undefined;
  wait.droppedCause =
    ledger?.capacity !== undefined && wait.after >= ledger.capacity
      ? `the table holds ${n(wait.after)} rows, its row ceiling (table-capacity ${n(ledger.capacity)}): it silently stops accepting rows when full`
      : ledger?.budget !== undefined && count && count.submissions + count.uncertain >= ledger.budget
        ? `the webhook is past its budget of ${n(ledger.budget)} submissions (webhook-budget; \`tds webhooks\`)`
        : 'a webhook past its budget of submissions (`tds webhooks`), a table at its row ceiling (table-capacity), or a webhook that feeds another table than --table';
  if (job.report.rejectsPath) {
    const reason = `dropped by the service: accepted, never shown in the table (${wait.droppedCause})`;
    await appendFile(job.report.rejectsPath, dropped.map((record) => `${JSON.stringify({ record, reason })}\n`).join(''));
  }
}

/** Takes the table's lock for a push by key, waiting (and saying so) while another push holds it. */
function lockTable(ctx: Context, job: PushJob, keyed: KeyedPush, windowMs: number): Promise<TableLock> {
  return TableLock.take({
    service: keyed.job.client.baseUrl,
    table: keyed.table,
    input: sourceName(job.input),
    windowMs,
    signal: ctx.signal,
    say: (line) => ctx.io.stderr.write(`${line}\n`),
  });
}

/** What the sending read needs of a keyed push; `lookup` is told the --skip-existing plan. */
function keyedSending(
  ctx: Context,
  keyed: Pick<KeyedSending, 'push' | 'reconciler' | 'keys'>,
  validation: ValidationResult | undefined,
  lookup: { text: string | null },
): KeyedSending {
  return {
    ...keyed,
    ...(validation ? { keyCount: validation.tally.toSend.records } : {}),
    onPlan: (plan) => {
      lookup.text = plan.text;
      ctx.verbose(`--skip-existing: ${plan.text}`);
    },
  };
}

/** --dry-run of --skip-existing: the plan if few keys are found, and the one the first lookup may switch to. */
async function existingPlanText(keyed: KeyedPush, sample: string[], keyCount: number): Promise<string> {
  const hopeful = (await keyed.lookups.existing(sample, keyCount, 0)).plan;
  const worst = (await keyed.lookups.existing(sample, keyCount)).plan;
  if (hopeful.kind === worst.kind) return worst.text;
  return `${hopeful.text} plus a page per 100 keys found; or ${worst.text}, if the first lookup finds most of them there`;
}

function keyReport(keyed: KeyedPush, lookup: string | null): KeyReport {
  return { field: keyed.job.spec.field, column: keyed.column.field.id, lookup, lookups: keyed.lookups };
}

/** The validating read of a file, with what it says about the input. */
async function validateFile(
  ctx: Context,
  job: PushJob,
  report: PushReport,
  from: { index?: JournalIndex; prior?: JournalContents; keyed?: KeyedPush; keys: PushedKeys },
): Promise<ValidationResult> {
  const validation = await validateInput(ctx, {
    ...job,
    index: from.index,
    rejectsPath: job.report.rejectsPath,
    progress: job.report.progress,
    ...(from.keyed ? { keyed: { push: from.keyed, keys: from.keys } } : {}),
  });
  report.read(validation.stats);
  const journaled = from.prior?.header.input.sha256;
  if (journaled && validation.stats.sha256 && journaled !== validation.stats.sha256) {
    if (from.keyed) {
      report.note(
        `${sourceName(job.input)} changed since its last push: the records of the batches that changed are looked up by key, and only those the table does not hold are sent`,
      );
    } else {
      report.warn(
        `${sourceName(job.input)} changed since the journal was written; every batch the journal records is unchanged, so the push goes on`,
      );
    }
  }
  return validation;
}

/** A checked file that had nothing left to send. */
function nothingSent(validation: ValidationResult): SendResult {
  return { ...emptyResult(validation.tally, validation.stats), exhausted: true };
}

function warnAfterSending(report: PushReport, job: PushJob, sent: SendResult, validation: ValidationResult | undefined): void {
  const redact = job.delivery?.target.redact ?? ((text: string) => text);
  for (const message of sent.warnings) {
    report.warn(`the webhook answered 2xx with success: false ("${redact(message)}"); those batches count as sent`);
  }
  if (!validation) report.read(sent.stats);
  else if (sent.exhausted && sent.stats.sha256 !== validation.stats.sha256) {
    report.warn(`${sourceName(job.input)} changed while it was being pushed; the journal records exactly what was sent`);
  }
}
