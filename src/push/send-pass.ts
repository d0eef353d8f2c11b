import type { Context } from '../core/context.js';
import type { RateLimiter } from '../http/rate-limiter.js';
import type { RetryPolicy } from '../http/retry-policy.js';
import { startLiveLine } from '../output/live-line.js';
import { BatchSender, type SendEvent, type StopReason } from './deliver/send-batches.js';
import type { WebhookClient } from './deliver/webhook-client.js';
import type { FlightControl } from './deliver/in-flight.js';
import type { ReadStats } from './input/input-record.js';
import { readInput } from './input/read-input.js';
import { CONFIRMED_REASON, entryOf, type JournalHeader } from './journal/journal-entry.js';
import { JournalWriter } from './journal/journal-writer.js';
import { type KeyedPush, keyedOptions } from './key/keyed-push.js';
import { markExisting } from './key/mark-existing.js';
import type { LookupPlan } from './key/key-lookups.js';
import type { PushedKeys } from './key/record-key.js';
import type { KeyReconciler } from './key/reconcile.js';
import type { Batch, BatchLimits } from './plan/batch.js';
import { batchPass } from './plan/batch-pass.js';
import type { JournalIndex } from './plan/resume-plan.js';
import { add, PushTally } from './plan/tally.js';
import { sourceName, type DeliveryOptions, type InputOptions, type JournalOptions } from './push-job.js';
import { logDuplicate, RejectsFile } from './report/rejects.js';

export interface SendPassOptions {
  input: InputOptions;
  limits: BatchLimits;
  journal: JournalOptions;
  /** the journal of an earlier run (--resume): appended to; without it a new journal gets `header` */
  index?: JournalIndex;
  header: JournalHeader;
  /** the input was read in full by the validation pass (its rejects are written already) */
  checked: boolean;
  rejectsPath?: string;
  progress: boolean;
  delivery: Pick<DeliveryOptions, 'target' | 'timeoutMs'>;
  client: Pick<WebhookClient, 'post'>;
  limiter: RateLimiter;
  /** how many requests to keep in flight (in-flight.ts), and what it settled on */
  flight: Pick<FlightControl, 'limit' | 'settled'>;
  /** --max-retries and the waits between tries */
  retry: Omit<RetryPolicy, 'idempotent'>;
  keyed?: KeyedSending;
}

/** --key: how the sending pass reads keys, skips existing ones and reconciles uncertain batches. */
export interface KeyedSending {
  push: KeyedPush;
  reconciler: KeyReconciler;
  /** collects the keys of the records, in input order */
  keys: PushedKeys;
  /** --skip-existing: keys the input holds in all (from the validation pass), for the lookup plan */
  keyCount?: number;
  onPlan?(plan: LookupPlan): void;
}

/** What the sending pass did. */
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
  /** from the start of the pass to the last answer */
  seconds: number;
  /** when the last request to the webhook ended (0: none) */
  lastRequestAt: number;
  /** the round trip measured and the requests in flight the run settled on */
  flight?: { roundTripMs: number; inFlight: number };
}

/** Reads the input (again) and sends what is due, journaling every batch. */
export async function sendPass(ctx: Context, options: SendPassOptions): Promise<SendResult> {
  const { journal: spec, delivery } = options;
  const journal = spec.path
    ? options.index
      ? JournalWriter.reopen(spec.path)
      : JournalWriter.create(spec.path, options.header)
    : undefined;
  const rejects = options.rejectsPath ? await RejectsFile.open(options.rejectsPath, options.checked ? 'append' : 'new') : undefined;
  const reader = readInput(options.input.path, options.input.stdin, options.input.read);
  const { keyed } = options;
  const pass = batchPass(reader, options.limits, {
    index: options.index,
    uncertain: spec.uncertain,
    onConfirmed: (batch) => journal?.append(entryOf(batch, 'accepted', { reason: CONFIRMED_REASON })),
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
  const result = emptyResult(pass.tally, reader.stats);
  const sender = new BatchSender({
    inFlightLimit: () => options.flight.limit,
    retry: options.retry,
    limiter: options.limiter,
    post: (body) => options.client.post(body),
    journal: journal ?? { append: async () => undefined },
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
    result.stops = await sender.run(keyed?.push.job.skipExisting ? withoutExisting(pass.batches, keyed) : pass.batches);
  } finally {
    line?.stop();
    await journal?.close();
    await rejects?.close();
  }
  result.exhausted = pass.exhausted;
  result.lastRequestAt = sender.lastRequestAt;
  // up to the last answer: the wait after it, until this run's rows show (--key), is not sending
  result.seconds = sender.lastRequestAt > 0 ? (sender.lastRequestAt - startedAt) / 1000 : (performance.now() - started) / 1000;
  const settled = options.flight.settled;
  if (settled) result.flight = settled;
  return result;
}

function withoutExisting(batches: AsyncIterable<Batch>, keyed: KeyedSending): AsyncIterable<Batch> {
  return markExisting(batches, {
    lookups: keyed.push.lookups,
    ...(keyed.keyCount !== undefined ? { keyCount: keyed.keyCount } : {}),
    ...(keyed.onPlan ? { onPlan: keyed.onPlan } : {}),
  });
}

/** What a sending pass that has not sent anything yet did. */
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
  };
}

/** Counts one batch's outcome (and writes its rejected records). */
async function record(result: SendResult, event: SendEvent, rejects: RejectsFile | undefined, keys: PushedKeys | undefined): Promise<void> {
  const { sending } = result;
  if (event.kind === 'existing' || event.kind === 'reconciled') {
    result.dealt += event.records;
    sending[event.kind] += event.records;
    return;
  }
  if (event.kind !== 'pending') result.dealt += event.batch.items.length;
  switch (event.kind) {
    case 'accepted':
      add(sending.sent, event.batch);
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
    case 'pending':
      add(sending.pending, event.batch);
      return;
  }
}

function progressText(result: SendResult, stats: ReadStats, inFlight: number, started: number): string {
  const sent = result.sending.sent.records;
  const rate = Math.round(sent / Math.max(0.001, (performance.now() - started) / 1000));
  const n = (value: number): string => value.toLocaleString('en-US');
  return `read ${n(stats.records)} · sent ${n(sent)} · ${inFlight} in flight · ${n(rate)} records/s`;
}
