import { RateLimiter } from '../../../src/http/rate-limiter.js';
import { BatchSender, type SendOptions } from '../../../src/push/deliver/send-batches.js';
import type { SendEvent, StopReason } from '../../../src/push/deliver/classify.js';
import type { WireResult } from '../../../src/push/deliver/webhook-client.js';
import type { JournalEntry } from '../../../src/push/journal/journal-format.js';
import type { SentRequest } from '../../../src/push/key/intake-window.js';
import type { SentBatch } from '../../../src/push/key/reconcile.js';
import { batchId, type Batch } from '../../../src/push/plan/batch.js';
import { batches as plainBatches } from './batches.js';
import { UNIT_RATE_SCALE } from '../../helpers/rate-scale.js';

// BatchSender with --key against a fake webhook and a fake reconciler (send-by-key*.test.ts).

export const batches = (count: number, size = 3): Batch[] => plainBatches(count, size, true);

export const response = (status: number, text = ''): WireResult => ({ kind: 'response', status, headers: {}, text, ms: 1 });
export const OK = response(200, '{"success":true,"message":"3 records are being processed"}');
export const BOOM = response(500, '{"statusCode":500,"error":"Internal","message":"boom"}');

/** A request as the fake webhook saw it: its records, and its place among all requests (1-based). */
export interface Seen {
  n: number;
  records: number[];
}

/** The reconciler's side of the run: what it was asked, and what the table holds (record numbers). */
export class FakeSettler {
  readonly calls: Array<{ batches: string[]; sent: SentRequest[]; lastRequestAt: number; inFlight: number; at: number }> = [];
  readonly accepted: Array<[string, boolean]> = [];
  readonly acceptedSent: SentRequest[] = [];
  readonly checks: Array<number | undefined> = [];
  checkDue = false;
  sender?: BatchSender;
  /** called inside found(), before it answers */
  onFound?: () => void;
  fail?: Error;

  constructor(public inTable: Set<number>) {}

  async found(list: readonly SentBatch[], lastRequestAt: number): Promise<Array<ReadonlySet<number>>> {
    this.calls.push({
      batches: list.map(({ batch }) => batchId(batch)),
      sent: list.map(({ sent }) => sent),
      lastRequestAt,
      inFlight: this.sender?.inFlight ?? -1,
      at: Date.now(),
    });
    this.onFound?.();
    if (this.fail) throw this.fail;
    return list.map(({ batch }) => new Set(batch.items.filter((item) => this.inTable.has(item.record)).map((item) => item.record)));
  }

  noteAccepted(batch: Batch, sent: SentRequest, thisRun = true): void {
    this.accepted.push([batchId(batch), thisRun]);
    this.acceptedSent.push(sent);
  }

  async checkKeysVisible(): Promise<void> {
    this.checks.push(undefined);
    this.checkDue = false;
  }

  async rowsVisible(lastRequestAt: number): Promise<void> {
    this.checks.push(lastRequestAt);
  }
}

export interface Run {
  events: SendEvent[];
  journal: JournalEntry[];
  stops: StopReason[];
  seen: Seen[];
  log: string[];
}

export async function run(
  list: Batch[],
  reconciler: FakeSettler,
  answer: (seen: Seen) => WireResult | Promise<WireResult>,
  options: Partial<SendOptions> = {},
): Promise<Run> {
  const journal: JournalEntry[] = [];
  const events: SendEvent[] = [];
  const seen: Seen[] = [];
  const log: string[] = [];
  const sender = new BatchSender({
    inFlightLimit: () => 1,
    retry: { maxRetries: 3, rateScale: UNIT_RATE_SCALE, random: () => 0.5 },
    limiter: new RateLimiter({ limit: 100, windowMs: 1000 / UNIT_RATE_SCALE }),
    post: async (body) => {
      const request = { n: seen.length + 1, records: (JSON.parse(body.toString('utf8')) as Array<{ r: number }>).map((o) => o.r) };
      seen.push(request);
      log.push(`start ${request.records.join(',')}`);
      const result = await answer(request);
      log.push(`end ${request.records.join(',')}`);
      return result;
    },
    journal: {
      append: async (entry) => {
        journal.push(entry);
        log.push(`journal ${batchId({ number: entry.batch, part: entry.part ?? '' })} ${entry.state}`);
      },
    },
    interrupt: new AbortController().signal,
    displayUrl: 'https://hook/…',
    redact: (text) => text,
    onOutcome: (event) => void events.push(event),
    reconciler,
    timeoutMs: 60_000,
    ...options,
  });
  reconciler.sender = sender;
  const onFound = reconciler.onFound;
  reconciler.onFound = () => {
    log.push('found');
    onFound?.();
  };
  const stops = await sender.run(
    (async function* () {
      yield* list;
    })(),
  );
  return { events, journal, stops, seen, log };
}

export const kinds = (events: SendEvent[]): string[] =>
  events.map((event) => `${event.kind}:${batchId(event.batch)}${'records' in event ? `(${event.records})` : ''}`);
export const statesOf = (journal: JournalEntry[], id: string): string[] =>
  journal.filter((entry) => batchId({ number: entry.batch, part: entry.part ?? '' }) === id).map((entry) => entry.state);
