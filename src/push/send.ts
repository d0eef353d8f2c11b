import { setTimeout as sleep } from 'node:timers/promises';
import type { RateLimitSlot, RateLimiter } from '../http/rate-limiter.js';
import { backoffMs, shouldRetry } from '../http/retry-policy.js';
import { DEFAULT_RETRY_AFTER_SECONDS } from '../spec/index.js';
import { batchId, splitBatch, type Batch } from './batch.js';
import { classifyPost, type PostOutcome } from './classify.js';
import type { BatchState, JournalEntry } from './journal.js';
import type { WireResult } from './webhook-client.js';

export interface SendOptions {
  concurrency: number;
  /** retries of one batch after a 429 or a connection refused before giving up */
  maxRetries: number;
  /** TDS_RATE_SCALE: retry-after and backoff waits are divided by it */
  rateScale: number;
  limiter: Pick<RateLimiter, 'acquireSlot' | 'pause'>;
  post(body: Buffer): Promise<WireResult>;
  journal: { append(entry: JournalEntry): Promise<void> };
  /** ctx.signal (SIGINT): start no more batches; the ones in flight finish and are journaled */
  interrupt: AbortSignal;
  /** how the webhook is shown in log lines */
  shown: string;
  /** keeps the webhook URL out of service messages before they are journaled, logged or shown */
  redact(text: string): string;
  log?: (line: string) => void;
  random?: () => number;
  /** Called once for every batch (or part) this run has dealt with, before its slot is freed. */
  onOutcome(event: SendEvent): Promise<void> | void;
}

export type SendEvent =
  | { kind: 'accepted'; batch: Batch; status: number; success?: boolean; message?: string }
  /** 400, or 413 for a single object: not taken in because of the records */
  | { kind: 'rejected'; batch: Batch; reason: string }
  | { kind: 'uncertain'; batch: Batch; reason: string }
  /** due, but not sent because the run is stopping */
  | { kind: 'pending'; batch: Batch };

export type StopReason =
  | { kind: 'uncertain'; detail: string }
  | { kind: 'interrupted' }
  /** 429s or refused connections beyond --max-retries */
  | { kind: 'gave-up'; detail: string }
  /** an answer that takes nothing in and will not change on retry (404, 401, a redirect…) */
  | { kind: 'refused'; status?: number; detail: string }
  /** the journal could not be written, or the input failed while streaming */
  | { kind: 'failed'; error: unknown };

export interface SendState {
  inFlight: number;
}

/**
 * Sends batches with at most `concurrency` in flight, each through the rate limiter, journaled before
 * and after. Stops starting batches at the first uncertain outcome, give-up or interrupt; batches in
 * flight always finish and are journaled. Batches are pulled from `batches` only when a slot is free.
 */
export async function sendBatches(
  batches: AsyncIterable<Batch>,
  options: SendOptions,
  state: SendState = { inFlight: 0 },
): Promise<StopReason[]> {
  const halt = new AbortController();
  const stops: StopReason[] = [];
  const stop = (reason: StopReason): void => {
    stops.push(reason);
    halt.abort();
  };
  const onInterrupt = (): void => stop({ kind: 'interrupted' });
  if (options.interrupt.aborted) onInterrupt();
  else options.interrupt.addEventListener('abort', onInterrupt, { once: true });

  const journal = (batch: Batch, state: BatchState, extra: { status?: number; reason?: string } = {}): Promise<void> =>
    options.journal.append(entryOf(batch, state, extra));

  const deliver = async (batch: Batch): Promise<void> => {
    for (let attempt = 0; ; attempt += 1) {
      if (halt.signal.aborted) return options.onOutcome({ kind: 'pending', batch });
      // Journaled before the rate-limit slot is taken, so the request leaves the moment its slot comes
      // (an fsync between the two would let requests bunch up at the service and draw 429s).
      await journal(batch, 'sending');
      const taken = await slot(options.limiter, halt.signal);
      if (!taken) {
        await journal(batch, 'unsent', { reason: 'the run stopped before this batch was sent' });
        return options.onOutcome({ kind: 'pending', batch });
      }
      state.inFlight += 1;
      const result = await options.post(batch.body).finally(() => {
        state.inFlight -= 1;
        taken.done();
      });
      const outcome = classifyPost(result);
      if ('detail' in outcome) outcome.detail = options.redact(outcome.detail);
      options.log?.(options.redact(logLine(options.shown, batch, result, outcome)));
      switch (outcome.kind) {
        case 'accepted':
          await journal(batch, 'accepted', { status: outcome.status });
          return options.onOutcome({ kind: 'accepted', batch, status: outcome.status, success: outcome.success, message: outcome.message });
        case 'retry': {
          await journal(batch, 'unsent', { status: outcome.status, reason: outcome.detail });
          const decision = shouldRetry({
            outcome: outcome.status
              ? { kind: 'status', status: outcome.status }
              : { kind: 'network', code: result.kind === 'failure' ? result.code : undefined },
            retriesSoFar: attempt,
            maxRetries: options.maxRetries,
            idempotent: false,
          });
          if (!decision.retry) {
            stop({ kind: 'gave-up', detail: `batch ${batchId(batch)}: ${outcome.detail} after ${attempt + 1} attempts` });
            return options.onOutcome({ kind: 'pending', batch });
          }
          if (outcome.why === 'rate-limited') {
            options.limiter.pause((outcome.retryAfterMs ?? DEFAULT_RETRY_AFTER_SECONDS * 1000) / options.rateScale);
          } else if (!(await pause(backoffMs(attempt, (options.random ?? Math.random)()) / options.rateScale, halt.signal))) {
            return options.onOutcome({ kind: 'pending', batch });
          }
          continue;
        }
        case 'too-large':
          if (batch.items.length === 1) {
            const reason = `the object alone is too large for the webhook (${outcome.detail})`;
            await journal(batch, 'rejected', { status: outcome.status, reason });
            return options.onOutcome({ kind: 'rejected', batch, reason });
          }
          await journal(batch, 'split', { status: outcome.status, reason: outcome.detail });
          for (const half of splitBatch(batch)) await deliver(half);
          return;
        case 'rejected':
          await journal(batch, 'rejected', { status: outcome.status, reason: outcome.detail });
          return options.onOutcome({ kind: 'rejected', batch, reason: outcome.detail });
        case 'uncertain':
          await journal(batch, 'uncertain', { status: outcome.status, reason: outcome.detail });
          stop({ kind: 'uncertain', detail: outcome.detail });
          return options.onOutcome({ kind: 'uncertain', batch, reason: outcome.detail });
        case 'stop':
          await journal(batch, 'unsent', { status: outcome.status, reason: outcome.detail });
          stop({ kind: 'refused', status: outcome.status, detail: outcome.detail });
          return options.onOutcome({ kind: 'pending', batch });
      }
    }
  };

  const running = new Set<Promise<void>>();
  const iterator = batches[Symbol.asyncIterator]();
  try {
    while (!halt.signal.aborted) {
      if (running.size >= options.concurrency) {
        await Promise.race(running);
        continue;
      }
      const next = await iterator.next();
      if (next.done) break;
      const task: Promise<void> = deliver(next.value)
        .catch((error: unknown) => stop({ kind: 'failed', error }))
        .finally(() => running.delete(task));
      running.add(task);
    }
  } catch (error) {
    stop({ kind: 'failed', error });
  } finally {
    await Promise.all(running);
    options.interrupt.removeEventListener('abort', onInterrupt);
    await iterator.return?.(undefined);
  }
  return stops;
}

/** Waits for a rate-limit slot; false when the run stopped first. */
/** A rate-limit slot, or undefined when the run stopped first. */
async function slot(limiter: SendOptions['limiter'], signal: AbortSignal): Promise<RateLimitSlot | undefined> {
  if (signal.aborted) return undefined;
  try {
    const taken = await limiter.acquireSlot(signal);
    if (!signal.aborted) return taken;
    taken.done();
    return undefined;
  } catch (error) {
    if (signal.aborted) return undefined;
    throw error;
  }
}

async function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  try {
    await sleep(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}

/** The journal's reason for an uncertain batch the user confirmed (--accept-uncertain). */
export const CONFIRMED_REASON = 'rows found in the table by the user (--accept-uncertain)';

export function entryOf(batch: Batch, state: BatchState, extra: { status?: number; reason?: string } = {}): JournalEntry {
  return {
    batch: batch.number,
    ...(batch.part ? { part: batch.part } : {}),
    first: batch.first,
    last: batch.last,
    count: batch.items.length,
    bytes: batch.bytes,
    sha256: batch.sha256,
    state,
    ...(extra.status !== undefined ? { status: extra.status } : {}),
    ...(extra.reason !== undefined ? { reason: extra.reason } : {}),
    at: new Date().toISOString(),
  };
}

function logLine(shown: string, batch: Batch, result: WireResult, outcome: PostOutcome): string {
  const answer = result.kind === 'response' ? String(result.status) : 'detail' in outcome ? outcome.detail : 'failed';
  return `POST ${shown} ${answer} ${Math.round(result.ms)}ms: batch ${batchId(batch)}, records ${batch.first}–${batch.last} (${batch.items.length} objects, ${batch.bytes} bytes) → ${outcome.kind}`;
}
