import { describe, expect, it } from 'vitest';
import type { BatchState } from '../../../src/push/journal/journal-entry.js';
import { BatchPoster, type Posted } from '../../../src/push/deliver/batch-poster.js';
import type { WireResult } from '../../../src/push/deliver/webhook-client.js';
import { batchId, type Batch } from '../../../src/push/plan/batch.js';
import { batches } from '../helpers/batches.js';

const SECRET = 'wh_secret_0123456789';
const response = (status: number, text = ''): WireResult => ({ kind: 'response', status, headers: {}, text, ms: 2 });

/** A poster whose webhook answers with `answer`; `log` holds journal lines, requests and log lines in order. */
function poster(answer: (body: Buffer) => Promise<WireResult>, journalFails = false) {
  const log: string[] = [];
  const journaled: Array<{ state: BatchState; status?: number; reason?: string }> = [];
  const subject: BatchPoster = new BatchPoster({
    post: async (body) => {
      log.push(`post (${subject.inFlight} in flight)`);
      return answer(body);
    },
    journal: async (batch: Batch, state, extra = {}) => {
      if (journalFails) throw new Error('disk full');
      log.push(`journal ${batchId(batch)} ${state}`);
      journaled.push({ state, ...extra });
    },
    shown: 'https://hook/…',
    redact: (text) => text.replaceAll(SECRET, '***'),
    log: (line) => log.push(line),
  });
  return { subject, log, journaled };
}

describe('BatchPoster', () => {
  it('journals the batch as sending before its request leaves, and counts it in flight until it ends', async () => {
    const { subject, log } = poster(async () => response(200, '{"success":true}'));
    const before = Date.now();
    const posted = await subject.post(batches(1)[0]!);
    expect(log).toEqual(['journal 1 sending', 'post (1 in flight)']);
    expect(subject.inFlight).toBe(0);
    expect(posted.outcome).toMatchObject({ kind: 'accepted', status: 200, success: true });
    expect(posted.sent.start).toBeGreaterThanOrEqual(before);
    expect(posted.sent.end).toBe(subject.lastRequestAt);
    expect(posted.sent.end).toBeGreaterThanOrEqual(posted.sent.start);
  });

  it('sends nothing when the journal cannot say it is sending', async () => {
    const { subject, log } = poster(async () => response(200), true);
    await expect(subject.post(batches(1)[0]!)).rejects.toThrow('disk full');
    expect(log).toEqual([]);
    expect(subject.lastRequestAt).toBe(0);
  });

  it('notes when a request that failed ended, and no longer counts it', async () => {
    const { subject } = poster(() => Promise.reject(new Error('boom')));
    await expect(subject.post(batches(1)[0]!)).rejects.toThrow('boom');
    expect(subject.inFlight).toBe(0);
    expect(subject.lastRequestAt).toBeGreaterThan(0);
  });

  it('keeps the webhook URL out of the answer it passes on', async () => {
    const { subject } = poster(async () => response(400, `{"message":"no webhook ${SECRET}"}`));
    const posted = await subject.post(batches(1)[0]!);
    expect(posted.outcome).toMatchObject({ kind: 'rejected', detail: 'HTTP 400: no webhook ***' });
  });

  it('logs each attempt, and journals one that took nothing in as unsent', async () => {
    const { subject, log, journaled } = poster(async () => response(429));
    const batch = batches(1)[0]!;
    const posted: Posted = await subject.post(batch);
    await subject.attempted(batch, {
      result: posted,
      number: 1,
      pacedMs: 0,
      decision: { retry: true, reason: 'rate-limited', waitMs: 10 },
    });
    expect(log.slice(2)).toEqual([
      'POST https://hook/… 429 2ms: batch 1, records 1–3 (3 objects, 25 bytes) → retry; retry in 10ms',
      'journal 1 unsent',
    ]);
    expect(journaled.at(-1)).toEqual({ state: 'unsent', status: 429, reason: 'HTTP 429' });
  });

  it('journals nothing after an attempt with a final answer', async () => {
    const { subject, log } = poster(async () => response(202));
    const batch = batches(1)[0]!;
    await subject.attempted(batch, { result: await subject.post(batch), number: 1, pacedMs: 0 });
    expect(log.filter((line) => line.startsWith('journal'))).toEqual(['journal 1 sending']);
  });
});
