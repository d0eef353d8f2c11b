import { open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { type Context, UsageError } from '../core/index.js';
import { startLiveLine } from '../output/index.js';
import { readInput } from './input/read-input.js';
import { keyedOptions, type KeyedPush } from './key/keyed-push.js';
import type { PushedKeys } from './key/record-key.js';
import type { ReadStats } from './input/input-record.js';
import type { Batch, BatchLimits, BatchItem } from './plan/batch.js';
import { batchInput } from './plan/input-batches.js';
import type { JournalIndex } from './plan/resume-plan.js';
import { PushTally, add } from './plan/tally.js';
import { sourceName, type InputOptions, type JournalOptions, type DeliveryOptions } from './push-job.js';
import type { RateLimiter, RetryPolicy } from '../http/index.js';
import { BatchSender, type SubmissionBudget } from './deliver/send-batches.js';
import type { SendEvent, StopReason } from './deliver/classify.js';
import type { WebhookClient } from './deliver/webhook-client.js';
import type { FlightControl, NetworkFigures } from './deliver/in-flight.js';
import { CONFIRMED_REASON, entryOf, type JournalHeader } from './journal/journal-format.js';
import { JournalWriter } from './journal/journal-writer.js';
import { markExisting } from './key/mark-existing.js';
import type { LookupPlan } from './key/key-lookups.js';
import type { KeyReconciler } from './key/reconcile.js';
import { createHash, randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { WebhookLedger, type LedgerRun } from './ledger/index.js';

// The two reads of the input, each through batchInput (plan/input-batches.ts): validateInput reads and
// batches all of it without sending (a dry run, and a file checked before anything is sent); sendInput
// reads it (again) and sends what is due, journaling every batch. Both write --rejects FILE.

/** What reading the whole input without sending found. */
export interface ValidationResult {
  tally: PushTally;
  /** uncertain batches of the journal confirmed as taken in (--accept-uncertain); to be journaled */
  confirmed: Batch[];
  stats: ReadStats;
  seconds: number;
}

export interface ValidateOptions {
  input: InputOptions;
  limits: BatchLimits;
  journal: JournalOptions;
  index?: JournalIndex;
  /** --rejects FILE: a file's rejected records are all listed now (staged, so a failed check keeps an earlier file) */
  rejectsPath?: string;
  progress: boolean;
  /** --key: keys read, repeated and missing ones marked; the keys collected in input order */
  keyed?: { push: KeyedPush; keys: PushedKeys };
}

/** Reads and batches the whole input without sending: the dry run, and the check of a file before sending. */
export async function validateInput(ctx: Context, options: ValidateOptions): Promise<ValidationResult> {
  const started = performance.now();
  const confirmed: Batch[] = [];
  const reader = readInput(options.input.path, options.input.stdin, options.input.read);
  const rejects = options.rejectsPath ? await RejectsFile.open(options.rejectsPath, 'staged') : undefined;
  const read = batchInput(reader, options.limits, {
    index: options.index,
    uncertain: options.journal.uncertain,
    onConfirmed: (batch) => void confirmed.push(batch),
    journalPath: options.journal.path,
    signal: ctx.signal,
    onRejected: async (batch, reason) => {
      options.keyed?.keys.reject(batch.items.map((item) => item.record));
      await rejects?.write(batch.items, reason);
    },
    ...(options.keyed ? { key: keyedOptions(options.keyed.push, sourceName(options.input), options.keyed.keys) } : {}),
    onDuplicate: logDuplicate(ctx),
  });
  const count = (): string => reader.stats.records.toLocaleString('en-US');
  const line = options.progress
    ? await startLiveLine(ctx.io, () => `checking ${sourceName(options.input)}: ${count()} records`, 250)
    : undefined;
  try {
    for await (const _batch of read.batches) {
      // counted by the read
    }
  } catch (error) {
    await rejects?.discard();
    throw error;
  } finally {
    line?.stop();
  }
  await rejects?.close();
  return { tally: read.tally, confirmed, stats: reader.stats, seconds: (performance.now() - started) / 1000 };
}

export interface SendInputOptions {
  input: InputOptions;
  limits: BatchLimits;
  journal: JournalOptions;
  /** the journal of an earlier run (--resume): appended to; without it a new journal gets `header` */
  index?: JournalIndex;
  header: JournalHeader;
  /** the input was read in full by the validating read (its rejects are written already) */
  checked: boolean;
  rejectsPath?: string;
  progress: boolean;
  delivery: Pick<DeliveryOptions, 'target' | 'timeoutMs' | 'ledger'>;
  client: Pick<WebhookClient, 'post'>;
  limiter: RateLimiter;
  /** how many requests to keep in flight (in-flight.ts), and what it arrived at */
  flight: Pick<FlightControl, 'limit' | 'chosen' | 'noteOverhead'>;
  /** --max-retries and the waits between tries */
  retry: Omit<RetryPolicy, 'idempotent'>;
  keyed?: KeyedSending;
  /** the table the webhook feeds, when known (--table): its ledger names it */
  tableName?: string;
}

/** --key: how the sending read reads keys, skips existing ones and reconciles uncertain batches. */
export interface KeyedSending {
  push: KeyedPush;
  reconciler: KeyReconciler;
  /** collects the keys of the records, in input order */
  keys: PushedKeys;
  /** --skip-existing: keys the input holds in all (from the validating read), for the lookup plan */
  keyCount?: number;
  onPlan?(plan: LookupPlan): void;
}

/** What the sending read did. */
export interface SendResult {
  /** counts of the reading: what the input holds and what the journal had concluded before */
  scan: PushTally;
  /** what happened to this run's requests */
  sending: PushTally;
  stops: StopReason[];
  stats: ReadStats;
  /** the input was read to its end */
  exhausted: boolean;
  /** records of the batches this run dealt with (taken in, rejected or uncertain) */
  dealt: number;
  /** messages of 2xx answers that said success: false */
  warnings: Set<string>;
  /** from the start of the read to the last answer */
  seconds: number;
  /** when the last request to the webhook ended (0: none) */
  lastRequestAt: number;
  /** the round trip measured, the most requests in flight at once, and how many the in-flight rule allowed */
  flight?: NetworkFigures;
  /** the webhook's budget (webhook-budget): what its ledger counted before this run, and what it has left after */
  budget?: BudgetReport;
  /** the record numbers the webhook took in, in the order its answers came (--wait names those it dropped) */
  acceptedRecords: number[];
}

export interface BudgetReport {
  budget: number;
  /** submissions the ledger counted before this run (uncertain ones included: they may have been taken) */
  usedBefore: number;
  /** what is left after this run's batches (each started batch counts) */
  left: number;
}

/** Reads the input (again) and sends what is due, journaling every batch. */
export async function sendInput(ctx: Context, options: SendInputOptions): Promise<SendResult> {
  const { journal: spec, delivery } = options;
  const journal = spec.path
    ? options.index
      ? JournalWriter.reopen(spec.path)
      : JournalWriter.create(spec.path, options.header)
    : undefined;
  const rejects = options.rejectsPath ? await RejectsFile.open(options.rejectsPath, options.checked ? 'append' : 'new') : undefined;
  const reader = readInput(options.input.path, options.input.stdin, options.input.read);
  const { keyed } = options;
  const ledger = delivery.ledger && (await openLedger(options, delivery.ledger));
  const journaled = ledger?.run.tee(journal) ?? journal;
  const read = batchInput(reader, options.limits, {
    index: options.index,
    uncertain: spec.uncertain,
    onConfirmed: (batch) => journaled?.append(entryOf(batch, 'accepted', { reason: CONFIRMED_REASON })),
    onAccepted: (batch, at) => keyed?.reconciler.noteAccepted(batch, { start: -Infinity, end: at }, false),
    journalPath: spec.path,
    onRejected: async (batch, reason) => {
      keyed?.keys.reject(batch.items.map((item) => item.record));
      // a checked file's rejects are written already
      if (!options.checked) await rejects?.write(batch.items, reason);
    },
    ...(keyed ? { key: keyedOptions(keyed.push, sourceName(options.input), keyed.keys) } : {}),
    ...(options.checked ? {} : { onDuplicate: logDuplicate(ctx) }),
  });
  const result = emptyResult(read.tally, reader.stats);
  const sender = new BatchSender({
    inFlightLimit: () => options.flight.limit,
    onOverhead: (ms) => options.flight.noteOverhead(ms),
    retry: options.retry,
    limiter: options.limiter,
    post: (body) => options.client.post(body),
    journal: journaled ?? { append: async () => undefined },
    ...(ledger?.budget ? { budget: ledger.budget } : {}),
    interrupt: ctx.signal,
    displayUrl: delivery.target.displayUrl,
    redact: delivery.target.redact,
    log: ctx.verbose,
    onOutcome: (event) => record(result, event, rejects, keyed?.keys),
    ...(keyed ? { reconciler: keyed.reconciler, timeoutMs: delivery.timeoutMs } : {}),
  });
  const started = performance.now();
  const startedAt = Date.now();
  const line = options.progress
    ? await startLiveLine(ctx.io, () => progressText(result, reader.stats, sender.inFlight, started), 250)
    : undefined;
  try {
    result.stops = await sender.run(keyed?.push.job.skipExisting ? withoutExisting(read.batches, keyed) : read.batches);
  } finally {
    line?.stop();
    await journal?.close();
    await ledger?.run.close();
    await rejects?.close();
  }
  Object.assign(result, { exhausted: read.exhausted, lastRequestAt: sender.lastRequestAt }, ledger?.report());
  // up to the last answer: the wait after it, until this run's rows show (--key), is not sending
  result.seconds = sender.lastRequestAt > 0 ? (sender.lastRequestAt - startedAt) / 1000 : (performance.now() - started) / 1000;
  const chosen = options.flight.chosen;
  if (chosen) result.flight = { roundTripMs: chosen.roundTripMs, inFlight: sender.mostInFlight, allowed: chosen.allowed };
  return result;
}

/** The webhook's ledger: this run's file, and the budget it has left (webhook-budget). */
async function openLedger(
  options: SendInputOptions,
  spec: NonNullable<DeliveryOptions['ledger']>,
): Promise<{ run: LedgerRun; budget?: SubmissionBudget; report(): { budget?: BudgetReport } }> {
  const { target } = options.delivery;
  const ledger = WebhookLedger.at(spec.dir, target);
  const count = await ledger.count();
  const usedBefore = count.submissions + count.uncertain;
  // the journal's batches are the same across runs (reconciling by key refers to an earlier run's request)
  const source = options.journal.path
    ? createHash('sha256').update(resolve(options.journal.path)).digest('hex').slice(0, 16)
    : randomUUID();
  const run = await ledger.run(source, options.tableName);
  if (spec.budget === undefined) return { run, report: () => ({}) };
  const budget = budgetOf(spec.budget, Math.max(0, spec.budget - usedBefore));
  return { run, budget, report: () => ({ budget: { budget: budget.budget, usedBefore, left: budget.left } }) };
}

function budgetOf(budget: number, left: number): SubmissionBudget {
  return {
    budget,
    get left() {
      return left;
    },
    take(records) {
      left -= records;
    },
  };
}

function withoutExisting(batches: AsyncIterable<Batch>, keyed: KeyedSending): AsyncIterable<Batch> {
  return markExisting(batches, {
    lookups: keyed.push.lookups,
    ...(keyed.keyCount !== undefined ? { keyCount: keyed.keyCount } : {}),
    ...(keyed.onPlan ? { onPlan: keyed.onPlan } : {}),
  });
}

/** What a sending read that has not sent anything yet did. */
export function emptyResult(scan: PushTally, stats: ReadStats): SendResult {
  return {
    scan,
    sending: new PushTally(),
    stops: [],
    stats,
    exhausted: false,
    dealt: 0,
    warnings: new Set(),
    seconds: 0,
    lastRequestAt: 0,
    acceptedRecords: [],
  };
}

/** Counts one batch's outcome (and writes its rejected records). */
async function record(result: SendResult, event: SendEvent, rejects: RejectsFile | undefined, keys: PushedKeys | undefined): Promise<void> {
  const { sending } = result;
  if (event.kind === 'existing' || event.kind === 'reconciled') {
    result.dealt += event.records;
    sending[event.kind === 'reconciled' && event.earlier ? 'earlierRuns' : event.kind] += event.records;
    return;
  }
  if (event.kind !== 'unsent') result.dealt += event.batch.items.length;
  switch (event.kind) {
    case 'accepted':
      add(sending.sent, event.batch);
      for (const item of event.batch.items) result.acceptedRecords.push(item.record);
      if (event.success === false) result.warnings.add(event.message ?? 'no message');
      return;
    case 'rejected':
      sending.reject(event.batch.items.map((item) => item.record));
      keys?.reject(event.batch.items.map((item) => item.record));
      await rejects?.write(event.batch.items, event.reason);
      return;
    case 'uncertain':
      sending.markUncertain(event.batch, event.reason);
      return;
    case 'unsent':
      add(sending.unsent, event.batch);
      return;
  }
}

function progressText(result: SendResult, stats: ReadStats, inFlight: number, started: number): string {
  const sent = result.sending.sent.records;
  const rate = Math.round(sent / Math.max(0.001, (performance.now() - started) / 1000));
  const n = (value: number): string => value.toLocaleString('en-US');
  return `read ${n(stats.records)} · sent ${n(sent)} · ${inFlight} in flight · ${n(rate)} records/s`;
}

/**
 * `--rejects FILE`: one NDJSON line per rejected record, `{"record": N, "reason": "...", "object": {...}}`.
 * It lists every rejected record of the input, earlier runs' included (--resume lists them again).
 */
class RejectsFile {
  private chain: Promise<void> = Promise.resolve();

  private constructor(
    readonly path: string,
    private readonly handle: FileHandle,
    private readonly staged: boolean,
  ) {}

  /**
   * `new`: start the file afresh; `append`: add to it; `staged`: write FILE.partial, renamed to FILE by
   * close() and removed by discard(), so a failed check never replaces an earlier complete file.
   */
  static async open(path: string, mode: 'new' | 'append' | 'staged'): Promise<RejectsFile> {
    const target = mode === 'staged' ? `${path}.partial` : path;
    try {
      return new RejectsFile(path, await open(target, mode === 'append' ? 'a' : 'w'), mode === 'staged');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new UsageError(`cannot write the rejects file ${target}${code ? ` (${code})` : ''}`);
    }
  }

  write(items: readonly BatchItem[], reason: string): Promise<void> {
    const text = items.map((item) => `{"record":${item.record},"reason":${JSON.stringify(reason)},"object":${item.json}}\n`).join('');
    this.chain = this.chain.then(() => this.handle.write(text).then(() => undefined));
    return this.chain;
  }

  async close(): Promise<void> {
    await this.chain;
    await this.handle.close();
    if (this.staged) await rename(`${this.path}.partial`, this.path);
  }

  async discard(): Promise<void> {
    await this.chain.catch(() => undefined);
    await this.handle.close();
    await unlink(this.staged ? `${this.path}.partial` : this.path).catch(() => undefined);
  }
}

/** --verbose lists each record left out for its repeated key. */
function logDuplicate(ctx: Context): (record: number, of: number, key: string) => void {
  return (record, of, key) => ctx.verbose(`record ${record} not sent: its key ${JSON.stringify(key)} repeats record ${of}'s`);
}
