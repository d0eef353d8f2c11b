import { describe, expect, it } from 'vitest';
import {
  attemptOutcome,
  classifyPost,
  gaveUpDetail,
  meaningOf,
  type FinalOutcome,
  type Meaning,
} from '../../../src/push/deliver/classify.js';
import type { WireResult } from '../../../src/push/deliver/webhook-client.js';
import { batches } from '../helpers/batches.js';

const response = (status: number, text = '', headers: Record<string, string> = {}): WireResult => ({
  kind: 'response',
  status,
  headers,
  text,
  ms: 1,
});
const failure = (code: string | undefined): WireResult => ({ kind: 'failure', code, message: 'x', ms: 1 });

describe('classifyPost', () => {
  it.each([
    [response(200, '{"success":true,"message":"2 records are being processed"}'), 'accepted'],
    [response(201), 'accepted'],
    [response(202, 'not json'), 'accepted'],
    [response(204), 'accepted'],
    [response(429, '', { 'retry-after': '3' }), 'retry'],
    [response(429), 'retry'],
    [response(413), 'too-large'],
    [response(400, '{"statusCode":400,"error":"Bad Request","message":"bad object"}'), 'rejected'],
    [response(500), 'uncertain'],
    [response(502, '<html>bad gateway</html>'), 'uncertain'],
    [response(503), 'uncertain'],
    [response(404), 'stop'],
    [response(401), 'stop'],
    [response(301), 'stop'],
    [failure('ECONNREFUSED'), 'retry'],
    [failure('UND_ERR_CONNECT_TIMEOUT'), 'retry'],
    [failure('ENOTFOUND'), 'stop'],
    [failure('ECONNRESET'), 'uncertain'],
    [failure('UND_ERR_SOCKET'), 'uncertain'],
    [failure('UND_ERR_HEADERS_TIMEOUT'), 'uncertain'],
    [failure('UND_ERR_BODY_TIMEOUT'), 'uncertain'],
    [failure('EPIPE'), 'uncertain'],
    [failure(undefined), 'uncertain'],
  ])('%j → %s', (result, kind) => expect(classifyPost(result).kind).toBe(kind));

  it('reads retry-after, the service message and a loose success flag', () => {
    expect(classifyPost(response(429, '', { 'retry-after': '3' }))).toMatchObject({ kind: 'retry', attempt: { retryAfterMs: 3000 } });
    expect(classifyPost(response(429))).toMatchObject({ kind: 'retry', attempt: { kind: 'status', status: 429 } });
    expect(classifyPost(failure('ECONNREFUSED'))).toMatchObject({
      kind: 'retry',
      attempt: { kind: 'network', code: 'ECONNREFUSED' },
      detail: expect.stringContaining('ECONNREFUSED'),
    });
    expect(classifyPost(response(400, '{"message":"bad object"}'))).toMatchObject({ detail: 'HTTP 400: bad object' });
    expect(classifyPost(response(200, '{"success":false,"message":"hmm"}'))).toMatchObject({
      kind: 'accepted',
      success: false,
      message: 'hmm',
    });
  });
});

describe('attemptOutcome', () => {
  it.each<[WireResult, unknown]>([
    [response(429, '', { 'retry-after': '3' }), { kind: 'status', status: 429, retryAfterMs: 3000 }],
    [response(429), { kind: 'status', status: 429 }],
    [response(500, '', { 'retry-after': '3' }), { kind: 'status', status: 500 }],
    [failure('ECONNREFUSED'), { kind: 'network', code: 'ECONNREFUSED' }],
  ])('%j → %j', (result, outcome) => expect(attemptOutcome(result)).toEqual(outcome));
});

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
      'a refusal (404, 401…) leaves the batch unsent, and stops the run',
      { kind: 'stop', status: 404, detail: 'HTTP 404' },
      { state: 'unsent', event: { kind: 'unsent' }, stop: { kind: 'refused', status: 404, detail: 'HTTP 404' } },
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
