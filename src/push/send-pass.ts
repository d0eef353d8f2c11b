import type { Context } from '../cli/context.js';
import type { RateLimiter } from '../http/rate-limiter.js';
import { batchRecords, type BatchLimits } from './batch.js';
import { dueBatches } from './due-batches.js';
import { JournalWriter, type JournalContents, type JournalHeader } from './journal.js';
import { startProgress } from './progress.js';
import type { PushRunOptions } from './push-run.js';
import { readInput } from './read-input.js';
import { RejectsFile } from './rejects.js';
import type { JournalIndex } from './resume-plan.js';
import { CONFIRMED_REASON, entryOf, sendBatches, type SendState, type StopReason } from './send.js';
import { add, PushTally } from './tally.js';
import type { WebhookClient } from './webhook-client.js';
import type { WebhookTarget } from './webhook-target.js';

export interface SendPassDeps {
  /** the input was read in full by planPass */
  checked: boolean;
  limits: BatchLimits;
  index?: JournalIndex;
  header: JournalHeader;
  prior?: JournalContents;
  client: WebhookClient;
  limiter: RateLimiter;
  target: WebhookTarget;
}

/** Reads the input (again) and sends what is due, journaling every batch. */
export async function sendPass(ctx: Context, options: PushRunOptions, deps: SendPassDeps) {
  const { target } = deps;
  const journal = options.journalPath
    ? deps.prior
      ? JournalWriter.reopen(options.journalPath)
      : JournalWriter.create(options.journalPath, deps.header)
    : undefined;
  const rejects = options.rejectsPath ? await RejectsFile.open(options.rejectsPath, deps.checked ? 'append' : 'new') : undefined;
  const scan = new PushTally();
  const sending = new PushTally();
  const reader = readInput(options.input, ctx.io.stdin, options.read);
  const state: SendState = { inFlight: 0 };
  const warnings = new Set<string>();
  let dealt = 0;
  let exhausted = false;
  const due = dueBatches(batchRecords(reader.records, deps.limits), {
    tally: scan,
    index: deps.index,
    uncertain: options.uncertain,
    onConfirmed: (batch) => journal?.append(entryOf(batch, 'accepted', { reason: CONFIRMED_REASON })),
    journalPath: options.journalPath,
    maxBytes: deps.limits.maxBytes,
    // a checked file's rejects are written already
    onRejected: deps.checked ? undefined : (batch, reason) => rejects?.write(batch.items, reason),
  });
  const started = performance.now();
  const progress = startProgress(options.progress ? ctx.io : undefined, () => {
    const rate = Math.round(sending.sent.records / Math.max(0.001, (performance.now() - started) / 1000));
    const n = (value: number): string => value.toLocaleString('en-US');
    return `read ${n(reader.stats.records)} · sent ${n(sending.sent.records)} · ${state.inFlight} in flight · ${n(rate)} records/s`;
  });
  let stops: StopReason[];
  try {
    stops = await sendBatches(
      (async function* () {
        yield* due;
        exhausted = true;
      })(),
      {
        concurrency: options.concurrency,
        maxRetries: options.maxRetries,
        rateScale: options.rateScale,
        limiter: deps.limiter,
        post: (body) => deps.client.post(body),
        journal: journal ?? { append: async () => undefined },
        interrupt: ctx.signal,
        shown: target.shown,
        redact: target.redact,
        log: ctx.verbose,
        onOutcome: async (event) => {
          if (event.kind !== 'pending') dealt += event.batch.items.length;
          switch (event.kind) {
            case 'accepted':
              add(sending.sent, event.batch);
              if (event.success === false) warnings.add(event.message ?? 'no message');
              return;
            case 'rejected':
              sending.reject(event.batch.items.map((item) => item.record));
              await rejects?.write(event.batch.items, event.reason);
              return;
            case 'uncertain':
              sending.markUncertain(event.batch, event.reason);
              return;
            case 'pending':
              add(sending.pending, event.batch);
              return;
          }
        },
      },
      state,
    );
  } finally {
    progress.stop();
    await journal?.close();
    await rejects?.close();
  }
  return { scan, sending, stops, stats: reader.stats, exhausted, dealt, warnings, sendSeconds: (performance.now() - started) / 1000 };
}
