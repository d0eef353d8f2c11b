import { z } from 'zod';
import { UsageError, holdPrivateUmask, PRIVATE_FILE_MODE } from '../../core/index.js';
import { loadWebhooks, configDir } from '../../config/index.js';
import type { ApiClient } from '../../http/index.js';
import {
  JOURNAL_KEEP_DAYS,
  parseKeyMapping,
  webhookTarget,
  type KeyMapping,
  type PushJob,
  type PushSummary,
  type WebhookTarget,
} from '../../push/index.js';
import { RATE_LIMITS, WEBHOOK_MAX_BODY_BYTES, WEBHOOK_MAX_OBJECTS, type Table } from '../../service/index.js';
import type { Session } from '../session.js';
import { serviceTable } from '../catalog.js';
import { defineTool, ToolFailure, type Tool, type ToolCall } from '../tool.js';
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const MAX_RECORDS = 10_000;
const CONCURRENCY = 4;
const REJECTS_SHOWN = 5;

const input = z
  .object({
    webhook: z.string().min(1).describe('a saved webhook, as @NAME'),
    table: z.string().min(1).describe('the table the webhook feeds: ID, exact name, or mirror table name'),
    key: z.string().min(1).describe('FIELD or FIELD=COLUMN'),
    records: z.array(z.record(z.string(), z.unknown())).min(1).max(MAX_RECORDS).describe('the records, as JSON objects'),
    skip_existing: z.boolean().optional().describe("don't send records whose key the table already holds"),
  })
  .strict();

/** The push_records calls under way, by table ID: each ends (resolves) when its call has answered. */
type UnderWay = Map<string, Promise<void>>;

export function pushRecordsTool(session: Session): Tool<typeof input> {
  const underWay: UnderWay = new Map();
  return defineTool({
    name: 'push_records',
    title: 'Push records into a table',
    description: [
      'Adds records to a table through its webhook, by key: each record once. `webhook` is the name of a webhook saved',
      'with `tds config set webhook.NAME`, written @NAME (a URL is refused: the secret never passes through the',
      'conversation). `key` is the record field that identifies a record (FIELD, or FIELD=COLUMN when the table column',
      'has another label); records whose key repeats an earlier one are not sent, and with `skip_existing: true` nor are',
      'those whose key the table already holds (use it when retrying). A journal under the config folder records what',
      `was sent: the same call made again within ${JOURNAL_KEEP_DAYS} days sends nothing twice. One push into a table at a time: a`,
      'call made while another pushes into the same table waits for it to end. Rows show in the table within about a minute (the',
      `webhook's intake). At most ${MAX_RECORDS.toLocaleString('en-US')} records a call. Returns the push summary (records read, sent,`,
      'duplicates, existing, rejected, uncertain).',
    ].join(' '),
    input,
    output: z.looseObject({ records: z.looseObject({ read: z.number(), sent: z.number() }), notes: z.array(z.string()) }),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    run: (args, call) => push(session, args, { call, underWay }),
  });
}

async function push(
  session: Session,
  args: z.output<typeof input>,
  { call, underWay }: { call: ToolCall; underWay: UnderWay },
): Promise<Record<string, unknown>> {
  const { ctx } = call.call;
  if (!args.webhook.startsWith('@')) {
    // not echoed: it may be the secret URL itself
    throw new UsageError('webhook: give the name of a saved webhook, as @NAME; a URL is refused', {
      hint: 'save the URL once with `tds config set webhook.NAME` (it is read from stdin), then pass @NAME: the secret never enters the conversation',
    });
  }
  const key = parseKeyMapping(args.key);
  if (key.field === '' || key.column === '')
    throw new UsageError(`key "${args.key}": give the record field, and optionally the column: FIELD or FIELD=COLUMN`);
  // a saved list is filled in order, as `tds push @NAME` fills it
  const urls = await loadWebhooks(ctx, args.webhook, session.options.profile);
  const [target, ...next] = urls.map(webhookTarget) as [WebhookTarget, ...WebhookTarget[]];
  for (const [i, url] of urls.entries()) {
    const { href, pathname } = (i === 0 ? target : next[i - 1]!).url;
    for (const secret of [url, href, pathname, pathname.split('/').pop()]) if (secret) session.secrets.add(secret);
  }
  const client = await session.service();
  const table = await serviceTable(session, (await client.tables()).tables, args.table);
  const turn = await takeTurn(underWay, table, call);
  // what a push writes under the config folder is the user's alone, its rejects too
  const releaseUmask = holdPrivateUmask();
  try {
    return await pushAs(session, args, { call, table, key, target, next, client });
  } finally {
    releaseUmask();
    turn.end();
  }
}

interface Push {
  call: ToolCall;
  table: Table;
  key: KeyMapping;
  target: WebhookTarget;
  /** the rest of a saved list, filled after `target` */
  next: WebhookTarget[];
  client: ApiClient;
}

/** The push itself, once it has the table to itself. */
async function pushAs(
  session: Session,
  args: z.output<typeof input>,
  { call, table, key, target, next, client }: Push,
): Promise<Record<string, unknown>> {
  const { ctx } = call.call;
  const files = await pushFiles(ctx.io.env, {
    webhookFingerprint: target.fingerprint,
    table: table.id,
    key: args.key,
    records: args.records,
  });
  const { delivery } = session.options;
  // the push pipeline is loaded by the first push
  const [{ runPush }, { DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_MS }, { dataDir }] = await Promise.all([
    import('../../push/run-push.js'),
    import('../../http/client.js'),
    import('../../push/ledger/index.js'),
  ]);
  const job: PushJob = {
    input: { path: files.input, stdin: ctx.io.stdin, read: { format: 'ndjson', infer: false, relaxColumns: false }, streamed: false },
    limits: { maxObjects: WEBHOOK_MAX_OBJECTS, maxBytes: WEBHOOK_MAX_BODY_BYTES },
    journal: { path: files.journal, resume: files.resume, uncertain: { byKey: true } },
    delivery: {
      target,
      ...(next.length > 0 ? { next } : {}),
      concurrency: CONCURRENCY,
      rate: RATE_LIMITS.webhook.requests,
      timeoutMs: delivery.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      maxRetries: delivery.maxRetries ?? DEFAULT_MAX_RETRIES,
      rateScale: delivery.rateScale,
      ledger: { dir: dataDir(ctx.io.env), budget: delivery.webhookBudget, capacity: delivery.tableCapacity },
    },
    key: { spec: key, table: table.id, client, onDuplicate: 'skip', skipExisting: Boolean(args.skip_existing) },
    report: { json: true, progress: false, rejectsPath: files.rejects },
    dryRun: false,
  };
  try {
    await runPush(ctx, job);
  } catch (error) {
    throw await failureOf(error, call, files.rejects);
  } finally {
    await files.remove();
  }
  return { ...(JSON.parse(call.call.stdout()) as PushSummary), notes: call.call.notes() };
}

/**
 * One push_records call into a table at a time, as the command line's lock has it for push by key
 * (two at once would each look up the other's keys before they show, and two identical ones would
 * share a journal): a call finding another under way says so and waits for it to end.
 */
async function takeTurn(underWay: UnderWay, table: Table, call: ToolCall): Promise<{ end(): void }> {
  let ahead = underWay.get(table.id);
  if (ahead) {
    call.call.ctx.io.stderr.write(
      `another push_records call into table "${table.name}" (${table.id}) is under way; waiting for it to end (one push into a table at a time)\n`,
    );
  }
  // every waiter wakes when the call ahead ends; the first to run takes the turn, the others wait on
  for (; ahead; ahead = underWay.get(table.id)) await untilDone(ahead, call.signal);
  let end!: () => void;
  underWay.set(table.id, new Promise<void>((resolve) => (end = resolve)));
  return {
    end: () => {
      underWay.delete(table.id);
      end();
    },
  };
}

/** Resolves when `work` ends, or rejects with the reason of `signal` when it aborts first. */
function untilDone(work: Promise<void>, signal: AbortSignal): Promise<void> {
  signal.throwIfAborted();
  return new Promise<void>((resolve, reject) => {
    const abort = (): void => reject(signal.reason);
    signal.addEventListener('abort', abort, { once: true });
    void work.finally(() => {
      signal.removeEventListener('abort', abort);
      resolve();
    });
  });
}

/** A push that ended short: its error, with the summary, the first rejected records and how to go on. */
async function failureOf(error: unknown, call: ToolCall, rejects: string): Promise<unknown> {
  const summary = call.call.stdout().trim();
  if (!summary) return error;
  const rejected = await firstRejects(rejects, REJECTS_SHOWN);
  const lines = [
    ...(rejected.length > 0 ? [`rejected: ${rejected.join('; ')}`] : []),
    'the same call again goes on from the journal: nothing accepted is sent twice',
    `the push summary: ${summary}`,
  ];
  return new ToolFailure(error, lines.join('\n'));
}

/** The journal of a push_records call is kept as long as a command's (push/journal/journal-folder.ts): the same call made again within it sends nothing twice. */
const KEEP_MS = JOURNAL_KEEP_DAYS * 86_400_000;

/** Where a push_records call keeps its records, its journal and its rejects, all private (0600). */
export interface PushFiles {
  /** the records as NDJSON, the push's input: this call's own, removed by `remove` */
  input: string;
  /** named after what is pushed where: shared by every call of the same push, kept for JOURNAL_KEEP_DAYS */
  journal: string;
  /** each rejected record with the reason (NDJSON): this call's own, removed by `remove` */
  rejects: string;
  /** the journal exists: an earlier call pushed these same records (a resumed push sends only what is left) */
  resume: boolean;
  /** Removes what the call no longer needs once it has answered: its records and rejects (the journal stays). */
  remove(): Promise<void>;
}

/**
 * The files of a push_records call under the config folder's mcp-push/. The journal is named after
 * what is pushed where (the webhook's fingerprint, the table, the key and the records): the same call
 * made again (an agent retrying after a lost answer) finds the journal of the first and sends nothing
 * twice. The records and rejects are the call's own (two calls at once never share a file name) and go
 * when it ends; a journal untouched for JOURNAL_KEEP_DAYS, and whatever a killed server left, go with
 * the next call.
 */
export async function pushFiles(
  env: NodeJS.ProcessEnv,
  push: { webhookFingerprint: string; table: string; key: string; records: readonly unknown[] },
): Promise<PushFiles> {
  const text = `${push.records.map((record) => JSON.stringify(record)).join('\n')}\n`;
  const id = createHash('sha256')
    .update(JSON.stringify([push.webhookFingerprint, push.table, push.key]))
    .update(text)
    .digest('hex')
    .slice(0, 24);
  const folder = join(configDir(env), 'mcp-push');
  await mkdir(folder, { recursive: true, mode: 0o700 });
  await removeStale(folder);
  const call = `${id}.${randomBytes(6).toString('hex')}`;
  const input = join(folder, `${call}.ndjson`);
  const journal = join(folder, `${id}.tds-journal`);
  const rejects = join(folder, `${call}.rejects.ndjson`);
  await writeFile(input, text, { mode: PRIVATE_FILE_MODE, flag: 'wx' });
  return {
    input,
    journal,
    rejects,
    resume: Boolean(await stat(journal).catch(() => undefined)),
    remove: async () => {
      for (const path of [input, rejects, `${rejects}.partial`]) await rm(path, { force: true });
    },
  };
}

/** Removes the files of mcp-push/ not written for JOURNAL_KEEP_DAYS. */
async function removeStale(folder: string): Promise<void> {
  const now = Date.now();
  for (const name of await readdir(folder)) {
    const path = join(folder, name);
    const info = await stat(path).catch(() => undefined);
    if (info?.isFile() && now - info.mtimeMs > KEEP_MS) await rm(path, { force: true });
  }
}

/** The first rejected records of a push, as `record N: reason` lines. */
export async function firstRejects(path: string, count: number): Promise<string[]> {
  const text = await readFile(path, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .slice(0, count)
    .map((line) => {
      const { record, reason } = JSON.parse(line) as { record: number; reason: string };
      return `record ${record}: ${reason}`;
    });
}
