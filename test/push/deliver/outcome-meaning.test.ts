import { describe, expect, it } from 'vitest';
import { gaveUpDetail, meaningOf, type FinalOutcome, type Meaning } from '../../../src/push/deliver/outcome-meaning.js';
import { batches } from '../helpers/batches.js';

const [batch] = batches(1);

describe('meaningOf', () => {
  it.each<[string, FinalOutcome, Omit<Meaning, 'event'> & { event: object }]>([
    [
      'a 2xx is taken in, with what the body said',
      { kind: 'accepted', status: 200, success: false, message: 'queued' },
      { state: 'accepted', event: { kind: 'accepted', status: 200, success: false, message: 'queued' } },
    ],
    [
      'a 400 rejects the records, and the run goes on',
      { kind: 'rejected', status: 400, detail: 'HTTP 400: bad object' },
      { state: 'rejected', event: { kind: 'rejected', reason: 'HTTP 400: bad object' } },
    ],
    [
      'a 5xx or a broken connection is uncertain, and stops the run',
      { kind: 'uncertain', status: 502, detail: 'HTTP 502' },
      { state: 'uncertain', event: { kind: 'uncertain', reason: 'HTTP 502' }, stop: { kind: 'uncertain', detail: 'HTTP 502' } },
    ],
    [
      'a refusal (404, 401…) leaves the batch unsent and pending, and stops the run',
      { kind: 'stop', status: 404, detail: 'HTTP 404' },
      { state: 'unsent', event: { kind: 'pending' }, stop: { kind: 'refused', status: 404, detail: 'HTTP 404' } },
    ],
  ])('%s', (_name, outcome, expected) => {
    const meaning = meaningOf(batch!, outcome);
    expect(meaning).toMatchObject(expected);
    expect(meaning.event.batch).toBe(batch);
    if (!expected.stop) expect(meaning.stop).toBeUndefined();
  });
});

describe('gaveUpDetail', () => {
  it('names the batch, the last answer and the attempts made', () => {
    expect(gaveUpDetail(batch!, { detail: 'HTTP 429', attempts: 6, decision: { retry: false, why: 'exhausted' } })).toBe(
      'batch 1: HTTP 429 after 6 attempts',
    );
  });

  it('tells a retry-after past the cap, in seconds', () => {
    const decision = { retry: false, why: 'wait-too-long', askedMs: 3_600_000 } as const;
    expect(gaveUpDetail(batch!, { detail: 'HTTP 429', attempts: 1, decision })).toBe(
      'batch 1: the webhook asked to wait 3600 s (HTTP 429); tds waits at most 300 s',
    );
  });
});
