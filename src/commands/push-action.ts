import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import { type Context, UsageError } from '../core/index.js';
import { loadSettings, loadWebhook, type Settings } from '../config/index.js';
import { connect } from './connect.js';
import { DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_MS, type ApiClient } from '../http/index.js';
import { WEBHOOK_MAX_BODY_BYTES } from '../service/index.js';
import { checkOutputTarget, chooseExportFormat, type ExportFormat } from '../output/index.js';
import type { HeaderMode } from '../records/index.js';
import { openMirrorKeys, type MirrorKeys } from '../mirror/index.js';
import {
  checkWebhookExists,
  csvDelimiter,
  dataDir,
  encodingNote,
  inputFormatOf,
  overlaps,
  parseBatchSelection,
  parseKeyMapping,
  pushArguments,
  runPush,
  webhookTarget,
  type DeliveryOptions,
  type InputEncoding,
  type InputFormat,
  type KeyJob,
  type ReadOptions,
  type RowsOutput,
  type UncertainPolicy,
  type WaitSpec,
  type WebhookTarget,
} from '../push/index.js';

export interface PushOptions {
  inputFormat?: InputFormat;
  types: 'strings' | 'infer';
  nest?: string;
  relaxColumns?: boolean;
  delimiter?: string;
  encoding?: InputEncoding;
  batchSize: number;
  concurrency?: number;
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
  /** true: until visible */
  wait?: boolean | string;
  table?: string;
  waitTimeout?: number;
  key?: string;
  skipExisting?: boolean;
  onDuplicate?: 'skip' | 'error';
  db?: string;
  output?: string;
  format?: Exclude<ExportFormat, 'table'>;
  header?: HeaderMode;
  json?: boolean;
  webhook?: string;
}

/** How long --wait polls by default: rows show within about 30 s; action columns take longer. */
const WAIT_TIMEOUT_S = { visible: 60, settled: 600 };

/** `tds push [webhook] [file]`: `positional` holds the arguments given, in order. */
export async function pushAction(ctx: Context, positional: string[], options: PushOptions, command: Command): Promise<void> {
  const args = pushArguments(positional);
  const settings = await loadSettings(ctx, command);
  const globals = command.optsWithGlobals() as { profile?: string; verbose?: boolean };
  const { named, target } = await resolveTargets(ctx, args.webhook, options, globals.profile);
  const { maxRetries = DEFAULT_MAX_RETRIES, timeoutMs = DEFAULT_TIMEOUT_MS } = settings;
  if (options.check) {
    if (!target) throw new UsageError('--check needs a webhook');
    return checkWebhookExists(ctx, deliveryOf(ctx, target, options, { ...settings, timeoutMs, maxRetries }), {
      json: Boolean(options.json),
    });
  }
  const waitUntil = checkCombinations(options);
  const format = inputFormatOf(args.input, options.inputFormat);
  if (options.types === 'infer' && (format === 'json' || format === 'ndjson')) {
    throw new UsageError('--types infer applies to CSV and TSV input; JSON values keep their own types');
  }
  const output = options.output ? await rowsOutput(options) : undefined;
  const pipe = await checkInput(ctx, args.input);
  const read = readOptions(ctx, args.input, format, options);

  const needsApi = options.key !== undefined || (waitUntil !== undefined && !options.dryRun);
  const client = needsApi ? await connect(ctx, command) : undefined;
  const mirror = client && options.db ? await openMirrorKeys(ctx, client, settings.db) : undefined;
  try {
    await runPush(ctx, {
      // a resumed file is checked in full against its journal before anything new is sent
      input: {
        path: args.input,
        stdin: ctx.io.stdin,
        read,
        streamed: pipe || !readFirst(options),
      },
      limits: { maxObjects: options.batchSize, maxBytes: WEBHOOK_MAX_BODY_BYTES },
      journal: {
        ...(options.journal !== undefined ? { path: options.journal } : {}),
        ...(pipe ? {} : { byDefault: { input: args.input, dataDir: dataDir(ctx.io.env) } }),
        resume: Boolean(options.resume),
        uncertain: { ...uncertainPolicy(options), byKey: options.key !== undefined },
        ...(named && target !== named ? { webhook: named } : {}),
      },
      ...(target ? { delivery: deliveryOf(ctx, target, options, { ...settings, timeoutMs, maxRetries }) } : {}),
      ...(client && waitUntil && options.table ? { wait: waitSpec(client, options, waitUntil, output) } : {}),
      ...(client && options.key !== undefined && options.table ? { key: keyJob(client, options, mirror) } : {}),
      report: { json: Boolean(options.json), progress: !globals.verbose, ...(options.rejects ? { rejectsPath: options.rejects } : {}) },
      dryRun: Boolean(options.dryRun),
    });
  } finally {
    mirror?.close();
    await client?.close();
  }
}

function deliveryOf(
  ctx: Context,
  target: WebhookTarget,
  options: PushOptions,
  settings: Pick<Settings, 'proxy' | 'rateScale' | 'webhookBudget' | 'tableCapacity'> & { timeoutMs: number; maxRetries: number },
): DeliveryOptions {
  return {
    target,
    concurrency: options.concurrency,
    proxy: settings.proxy,
    rate: options.rate,
    timeoutMs: settings.timeoutMs,
    maxRetries: settings.maxRetries,
    rateScale: settings.rateScale,
    ledger: { dir: dataDir(ctx.io.env), budget: settings.webhookBudget, capacity: settings.tableCapacity },
  };
}

/** How the input is read; what was found out about it (its delimiter, its encoding) is said on stderr. */
function readOptions(ctx: Context, input: string, format: InputFormat, options: PushOptions): ReadOptions {
  const say = (line: string): void => void ctx.io.stderr.write(line);
  return {
    format,
    infer: options.types === 'infer',
    nest: options.nest,
    relaxColumns: Boolean(options.relaxColumns),
    ...csvDelimiter(options.delimiter, format === 'csv' ? input : undefined, say),
    ...(options.encoding ? { encoding: options.encoding } : {}),
    onEncoding: encodingNote(input, say),
  };
}

function waitSpec(client: ApiClient, options: PushOptions, until: 'visible' | 'settled', output: RowsOutput | undefined): WaitSpec {
  return {
    client,
    table: options.table ?? '',
    timeoutMs: (options.waitTimeout ?? WAIT_TIMEOUT_S[until]) * 1000,
    ...(until === 'settled' ? { settled: output ? { output } : {} } : {}),
  };
}

function keyJob(client: ApiClient, options: PushOptions, mirror: MirrorKeys | undefined): KeyJob {
  return {
    spec: parseKeyMapping(options.key ?? ''),
    table: options.table ?? '',
    client,
    onDuplicate: options.onDuplicate ?? 'skip',
    skipExisting: Boolean(options.skipExisting),
    ...(mirror ? { mirror } : {}),
  };
}

/** -o FILE of --wait settled: its format (extension or --format), checked to be writable before anything is sent. */
async function rowsOutput(options: PushOptions): Promise<RowsOutput> {
  const path = options.output ?? '';
  const format = chooseExportFormat({ ...(options.format ? { format: options.format } : {}), output: path, fallback: 'csv' });
  if (format === 'table') throw new UsageError('-o FILE takes a data format: csv, tsv, ndjson, json or parquet');
  await checkOutputTarget(path);
  // found out now, not after the push and the wait
  await access(dirname(resolve(path)), constants.W_OK).catch(() => {
    throw new UsageError(`cannot write -o ${path}: its folder is missing or not writable`, {
      hint: 'give a path in a folder you can write to',
    });
  });
  return { path, format, header: options.header ?? 'label' };
}

/** The webhook named first (the journal's), and the one the batches go to: --webhook NEW, else the same. */
async function resolveTargets(
  ctx: Context,
  webhook: string | undefined,
  options: PushOptions,
  profile: string | undefined,
): Promise<{ named: WebhookTarget | undefined; target: WebhookTarget | undefined }> {
  const named = await resolveTarget(ctx, webhook, profile, Boolean(options.dryRun) || options.webhook !== undefined);
  if (options.webhook === undefined) return { named, target: named };
  return { named, target: await resolveTarget(ctx, options.webhook, profile, false) };
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

/**
 * Whether a file is read in full before the first request: asked for, resumed (checked against the
 * journal), --skip-existing (the lookup plan needs the number of keys) or --on-duplicate error (a
 * repeated key anywhere stops the push before anything is sent).
 */
function readFirst(options: PushOptions): boolean {
  return Boolean(options.validateFirst || options.resume || options.skipExisting || options.onDuplicate === 'error');
}

/** Flags that need others; returns what --wait waits for. */
function checkCombinations(options: PushOptions): 'visible' | 'settled' | undefined {
  if (options.resendUncertain && !options.resume) throw new UsageError('--resend-uncertain goes with --resume');
  if (options.acceptUncertain && !options.resume) throw new UsageError('--accept-uncertain goes with --resume');
  if (options.nest === '') throw new UsageError('--nest needs a separator, such as .');
  const until = options.wait === undefined ? undefined : options.wait === true ? 'visible' : options.wait;
  if (until !== undefined && until !== 'visible' && until !== 'settled') {
    throw new UsageError(`--wait ${until}: wait until "visible" (the default) or "settled"`, {
      hint: '--wait, --wait visible or --wait settled',
    });
  }
  const key = options.key;
  if (key !== undefined && (parseKeyMapping(key).field === '' || parseKeyMapping(key).column === '')) {
    throw new UsageError(`--key "${key}": give the input key, and optionally the column it fills: --key FIELD or --key FIELD=COLUMN`);
  }
  if ((until !== undefined || key !== undefined) && !options.table) {
    throw new UsageError(`${key !== undefined ? '--key' : '--wait'} needs --table TABLE (the table the webhook feeds)`);
  }
  if (options.table && until === undefined && key === undefined)
    throw new UsageError('--table is used by --wait and --key; add one of them');
  const needsKey = {
    '--skip-existing': options.skipExisting,
    '--on-duplicate': options.onDuplicate,
    '--wait settled': until === 'settled',
  };
  for (const [flag, given] of Object.entries(needsKey)) if (given && key === undefined) throw new UsageError(`${flag} needs --key FIELD`);
  if (options.db !== undefined && !options.skipExisting)
    throw new UsageError('--db is used by --skip-existing (the mirror to look keys up in)');
  if (options.output !== undefined && until !== 'settled') {
    throw new UsageError('-o FILE writes the pushed rows once they have settled: add --wait settled (and --key)');
  }
  for (const flag of ['format', 'header'] as const)
    if (options[flag] !== undefined && options.output === undefined) throw new UsageError(`--${flag} is for -o FILE`);
  if (options.waitTimeout !== undefined && until === undefined) throw new UsageError('--wait-timeout goes with --wait');
  return until;
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
