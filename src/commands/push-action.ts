import { stat } from 'node:fs/promises';
import type { Command } from 'commander';
import type { Context } from '../core/context.js';
import { UsageError } from '../core/errors.js';
import { loadSettings } from '../config/settings.js';
import { connect } from './client.js';
import { loadWebhook } from '../config/webhooks.js';
import { DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_MS } from '../http/client.js';
import { RATE_LIMITS, WEBHOOK_MAX_BODY_BYTES } from '../spec/index.js';
import { checkWebhook } from '../push/deliver/check-webhook.js';
import { inputFormatOf, type InputFormat } from '../push/input/input-format.js';
import { overlaps, parseBatchSelection } from '../push/plan/batch-selection.js';
import type { UncertainPolicy } from '../push/plan/resume-plan.js';
import { runPush } from '../push/run-push.js';
import { WebhookClient } from '../push/deliver/webhook-client.js';
import { webhookLimiter } from '../push/deliver/webhook-limiter.js';
import { pushArguments, webhookTarget, type WebhookTarget } from '../push/deliver/webhook-target.js';

export interface PushOptions {
  inputFormat?: InputFormat;
  types: 'strings' | 'infer';
  nest?: string;
  relaxColumns?: boolean;
  batchSize: number;
  concurrency: number;
  rate: number;
  journal?: string;
  resume?: boolean;
  /** true without a list of batches */
  resendUncertain?: string | true;
  acceptUncertain?: string | true;
  rejects?: string;
  check?: boolean;
  dryRun?: boolean;
  validateFirst?: boolean;
  wait?: boolean;
  table?: string;
  waitTimeout: number;
  json?: boolean;
}

/** `tds push [webhook] [file]`: `positional` holds the arguments given, in order. */
export async function pushAction(ctx: Context, positional: string[], options: PushOptions, command: Command): Promise<void> {
  const args = pushArguments(positional);
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
  const read = { format, infer: options.types === 'infer', nest: options.nest, relaxColumns: Boolean(options.relaxColumns) };
  const client = options.wait && !options.dryRun ? await connect(ctx, command) : undefined;
  try {
    await runPush(ctx, {
      // a resumed file is checked in full against its journal before anything new is sent
      input: { path: args.input, stdin: ctx.io.stdin, read, streamed: pipe || !(options.validateFirst || options.resume) },
      limits: { maxObjects: options.batchSize, maxBytes: WEBHOOK_MAX_BODY_BYTES },
      journal: {
        path: journalPath,
        resume: Boolean(options.resume),
        uncertain: uncertainPolicy(options),
      },
      ...(target
        ? {
            delivery: {
              target,
              concurrency: options.concurrency,
              rate: options.rate,
              timeoutMs,
              maxRetries,
              rateScale: settings.rateScale,
            },
          }
        : {}),
      ...(client && options.table ? { wait: { client, table: options.table, timeoutMs: options.waitTimeout * 1000 } } : {}),
      report: { json: Boolean(options.json), progress: !globals.verbose, ...(options.rejects ? { rejectsPath: options.rejects } : {}) },
      dryRun: Boolean(options.dryRun),
    });
  } finally {
    await client?.close();
  }
}

async function resolveTarget(
  ctx: Context,
  webhook: string | undefined,
  profile: string | undefined,
  optional: boolean,
): Promise<WebhookTarget | undefined> {
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
  if (options.wait && !options.table) throw new UsageError('--wait needs --table TABLE (the table the webhook feeds)');
  if (options.table && !options.wait) throw new UsageError('--table is used by --wait; add --wait');
  if (options.nest === '') throw new UsageError('--nest needs a separator, such as .');
}

/** --resend-uncertain and --accept-uncertain, each for every uncertain batch or for the batches it names, never both for one. */
function uncertainPolicy(options: PushOptions): UncertainPolicy {
  const resend = options.resendUncertain === undefined ? undefined : parseBatchSelection('--resend-uncertain', options.resendUncertain);
  const accept = options.acceptUncertain === undefined ? undefined : parseBatchSelection('--accept-uncertain', options.acceptUncertain);
  if (resend && accept && overlaps(resend, accept)) {
    throw new UsageError('--resend-uncertain and --accept-uncertain name the same batches', {
      hint: 'check the table for each uncertain batch: --accept-uncertain B for those whose records are there, --resend-uncertain B for those missing',
    });
  }
  return { ...(resend ? { resend } : {}), ...(accept ? { accept } : {}) };
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

async function checkOnly(
  ctx: Context,
  target: WebhookTarget,
  settings: { maxRetries: number; timeoutMs: number; rateScale: number; json: boolean },
): Promise<void> {
  const client = new WebhookClient({ url: target.url, connections: 1, timeoutMs: settings.timeoutMs });
  try {
    await checkWebhook({
      client,
      target,
      limiter: webhookLimiter(RATE_LIMITS.webhook.requests, settings.rateScale),
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
