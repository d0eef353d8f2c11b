import { stat } from 'node:fs/promises';
import { Command, Option } from 'commander';
import type { Context } from '../cli/context.js';
import { UsageError } from '../cli/errors.js';
import { parseIntegerOption, parseNumberOption } from '../cli/options.js';
import { connect, loadSettings } from '../config/settings.js';
import { loadWebhook } from '../config/webhooks.js';
import { DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_MS } from '../http/client.js';
import { RATE_LIMITS, WEBHOOK_MAX_OBJECTS } from '../spec/index.js';
import { checkWebhook } from '../push/check-webhook.js';
import { INPUT_FORMATS, inputFormatOf, type InputFormat } from '../push/input-format.js';
import { runPush } from '../push/push-run.js';
import { WebhookClient } from '../push/webhook-client.js';
import { webhookLimiter } from '../push/webhook-limiter.js';
import { pushArguments, webhookTarget, type WebhookTarget } from '../push/webhook-target.js';

interface PushOptions {
  inputFormat?: InputFormat;
  types: 'strings' | 'infer';
  nest?: string;
  relaxColumns?: boolean;
  batchSize: number;
  concurrency: number;
  rate: number;
  journal?: string;
  resume?: boolean;
  resendUncertain?: boolean;
  acceptUncertain?: boolean;
  rejects?: string;
  check?: boolean;
  dryRun?: boolean;
  validateFirst?: boolean;
  wait?: boolean;
  table?: string;
  waitTimeout: number;
  json?: boolean;
}

const WEBHOOK_RATE = RATE_LIMITS.webhook.requests;

export function pushCommand(ctx: Context): Command {
  return new Command('push')
    .description('send CSV, TSV, NDJSON or JSON records into a table through its webhook, each record once')
    .argument('[webhook]', 'the webhook URL, or @NAME saved with `tds config set webhook.NAME`; default: TDS_WEBHOOK_URL')
    .argument('[file]', 'the input file, or - for stdin (the default)')
    .addOption(new Option('--input-format <format>', 'input format (default: from the file extension; needed for stdin)').choices(INPUT_FORMATS))
    .addOption(new Option('--types <mode>', 'CSV/TSV values: strings, or infer numbers and true/false').choices(['strings', 'infer']).default('strings'))
    .option('--nest <sep>', 'build nested objects from keys containing SEP (--nest . turns address.city into {"address": {"city": …}})')
    .option('--relax-columns', 'CSV/TSV: accept rows with fewer or more fields than the header (extra values are dropped)')
    .option('--batch-size <n>', `objects per request, 1 to ${WEBHOOK_MAX_OBJECTS}`, parseIntegerOption('--batch-size', 1, WEBHOOK_MAX_OBJECTS), WEBHOOK_MAX_OBJECTS)
    .option('--concurrency <n>', 'requests in flight', parseIntegerOption('--concurrency', 1, 32), 4)
    .option('--rate <n>', `requests a second, at most ${WEBHOOK_RATE} (the webhook's limit per IP address)`, parseIntegerOption('--rate', 1, WEBHOOK_RATE), WEBHOOK_RATE)
    .option('--journal <file>', 'journal of sent batches (default: FILE.tds-journal beside a file input; none for stdin)')
    .option('--resume', 'continue the push recorded in the journal: batches already sent are skipped')
    .option('--resend-uncertain', 'with --resume: send the uncertain batches again (their rows were NOT found in the table)')
    .option('--accept-uncertain', 'with --resume: record the uncertain batches as taken in (their rows WERE found in the table)')
    .option('--rejects <file>', 'write rejected records to FILE as NDJSON: {"record": N, "reason": "…", "object": {…}}')
    .option('--check', 'only check that the webhook exists (HEAD; adds no row)')
    .option('--dry-run', 'read, validate and batch the input and print the plan; send nothing')
    .option('--validate-first', 'read and validate the whole file before the first request, so a bad row anywhere sends nothing')
    .option('--wait', 'after sending, poll the table until the new rows are visible (needs --table and the API key)')
    .option('--table <table>', 'the table the webhook feeds, by ID or exact name (for --wait)')
    .option('--wait-timeout <seconds>', 'how long --wait polls', parseNumberOption('--wait-timeout', 1, 86_400), 60)
    .option('--json', 'print the summary as one JSON object on stdout')
    .addHelpText(
      'after',
      `
Each request carries at most --batch-size objects and at most 1,000,000 bytes of body. Empty
objects are skipped. An object too large to send alone is rejected (listed with its record
number, and written to --rejects FILE); the run goes on and ends with exit 7.

Input is validated as it streams, so a bad record stops the push there: fix it and --resume
(the batches already sent are checked against the journal and skipped). With --validate-first,
and always with --resume, a file is read and checked in full before the first request, so a bad
row anywhere sends nothing (this costs a few seconds per million records).

Nothing is sent twice: every batch is journaled (fsynced) before and after its request, and
--resume skips the batches already taken in. A 5xx, a timeout or a connection broken after the
request was sent leaves its batch *uncertain* (rows may have been added): no more batches are
started and the push ends with exit 7. Check the table first; --resume --resend-uncertain sends
the uncertain batches again, --resume alone never does. A 429 waits retry-after (10 s when
absent); a refused connection is retried; both at most --max-retries times per batch. On Ctrl-C
the batches in flight finish and are journaled (exit 130).

Global options that matter here: --timeout SECONDS (default 30; a request unanswered by then is
uncertain), --max-retries N (default 5), -v (one line per request, the webhook URL redacted).
The summary goes to stderr; --json prints it on stdout instead.

Exit codes: 0 all records sent; 2 bad input or options; 4 webhook not found; 7 push incomplete
(uncertain, rejected or unsent records, or fewer rows visible than sent with --wait); 130
interrupted. --wait: the webhook adds rows asynchronously, so exit 7 after --wait means they
were not visible yet, not that they are lost.

Examples:
  $ tds config set webhook.signups            # paste the URL; it never appears in argv
  $ tds push @signups people.csv --types infer --nest .
  $ tds push @signups people.csv --resume     # after an interruption
  $ TDS_WEBHOOK_URL=… tds push events.ndjson --json
  $ cat data.json | tds push @signups - --input-format json --journal data.journal
  $ tds push @signups --check`,
    )
    .action(async (webhookArg: string | undefined, fileArg: string | undefined, options: PushOptions, command: Command) => {
      const args = pushArguments([webhookArg, fileArg].filter((arg): arg is string => arg !== undefined));
      const settings = await loadSettings(ctx, command);
      const globals = command.optsWithGlobals() as { profile?: string; verbose?: boolean };
      const target = await resolveTarget(ctx, args.webhook, globals.profile, Boolean(options.dryRun));
      const maxRetries = settings.maxRetries ?? DEFAULT_MAX_RETRIES;
      const timeoutMs = settings.timeoutMs ?? DEFAULT_TIMEOUT_MS;

      if (options.check) {
        if (!target) throw new UsageError('--check needs a webhook');
        return checkOnly(ctx, target, { maxRetries, timeoutMs, rateScale: settings.rateScale, json: Boolean(options.json) });
      }
      checkCombinations(options);
      const format = inputFormatOf(args.input, options.inputFormat);
      if (options.types === 'infer' && (format === 'json' || format === 'ndjson')) {
        throw new UsageError('--types infer applies to CSV and TSV input; JSON values keep their own types');
      }
      const pipe = await checkInput(ctx, args.input);
      const journalPath = options.journal ?? (pipe ? undefined : `${args.input}.tds-journal`);
      const client = options.wait && !options.dryRun ? await connect(ctx, command) : undefined;
      try {
        await runPush(ctx, {
          input: args.input,
          // a resumed file is checked in full against its journal before anything new is sent
          streamed: pipe || !(options.validateFirst || options.resume),
          read: { format, infer: options.types === 'infer', nest: options.nest, relaxColumns: Boolean(options.relaxColumns) },
          batchSize: options.batchSize,
          concurrency: options.concurrency,
          rate: options.rate,
          journalPath,
          resume: Boolean(options.resume),
          uncertain: options.resendUncertain ? 'resend' : options.acceptUncertain ? 'accept' : 'leave',
          rejectsPath: options.rejects,
          dryRun: Boolean(options.dryRun),
          json: Boolean(options.json),
          target,
          timeoutMs,
          maxRetries,
          rateScale: settings.rateScale,
          wait: client && options.table ? { client, table: options.table, timeoutMs: options.waitTimeout * 1000 } : undefined,
          progress: !globals.verbose,
          reportUsage: ctx.io.env.TDS_PUSH_REPORT_USAGE === '1',
        });
      } finally {
        await client?.close();
      }
    });
}

async function resolveTarget(ctx: Context, webhook: string | undefined, profile: string | undefined, optional: boolean): Promise<WebhookTarget | undefined> {
  const raw = webhook?.startsWith('@') ? await loadWebhook(ctx, webhook.slice(1), profile) : (webhook ?? ctx.io.env.TDS_WEBHOOK_URL);
  if (raw === undefined || raw.trim() === '') {
    if (optional) return undefined;
    throw new UsageError('no webhook given', {
      hint: 'give the webhook URL or @NAME (saved with `tds config set webhook.NAME`) before the file, or set TDS_WEBHOOK_URL',
    });
  }
  return webhookTarget(raw);
}

function checkCombinations(options: PushOptions): void {
  if (options.resendUncertain && !options.resume) throw new UsageError('--resend-uncertain goes with --resume');
  if (options.acceptUncertain && !options.resume) throw new UsageError('--accept-uncertain goes with --resume');
  if (options.resendUncertain && options.acceptUncertain) {
    throw new UsageError('--resend-uncertain and --accept-uncertain exclude each other', {
      hint: 'check the table: --accept-uncertain if the uncertain records are there, --resend-uncertain if they are missing',
    });
  }
  if (options.wait && !options.table) throw new UsageError('--wait needs --table TABLE (the table the webhook feeds)');
  if (options.table && !options.wait) throw new UsageError('--table is used by --wait; add --wait');
  if (options.nest === '') throw new UsageError('--nest needs a separator, such as .');
}

/** Whether the input can only be read once (stdin, a pipe); a regular file is read twice. */
async function checkInput(ctx: Context, input: string): Promise<boolean> {
  if (input === '-') {
    if ((ctx.io.stdin as NodeJS.ReadStream).isTTY) {
      throw new UsageError('no input: give a FILE, or pipe records to stdin', { hint: 'tds push @NAME data.csv' });
    }
    return true;
  }
  const info = await stat(input).catch((error: NodeJS.ErrnoException) => {
    throw new UsageError(`cannot read ${input}${error.code === 'ENOENT' ? ': no such file' : ` (${error.code})`}`);
  });
  if (info.isDirectory()) throw new UsageError(`${input} is a directory, not a file`);
  return !info.isFile();
}

async function checkOnly(ctx: Context, target: WebhookTarget, settings: { maxRetries: number; timeoutMs: number; rateScale: number; json: boolean }): Promise<void> {
  const client = new WebhookClient({ url: target.url, connections: 1, timeoutMs: settings.timeoutMs });
  try {
    await checkWebhook({
      client,
      target,
      limiter: webhookLimiter(WEBHOOK_RATE, settings.rateScale),
      maxRetries: settings.maxRetries,
      rateScale: settings.rateScale,
      signal: ctx.signal,
      log: ctx.verbose,
    });
    if (settings.json) ctx.io.stdout.write(`${JSON.stringify({ webhook: target.shown, exists: true })}\n`);
    else ctx.io.stderr.write(`webhook exists: ${target.shown}\n`);
  } finally {
    await client.close();
  }
}
