import { describe, expect, it } from 'vitest';
import { attemptOutcome, classifyPost } from '../../../src/push/deliver/classify.js';
import type { WireResult } from '../../../src/push/deliver/webhook-client.js';

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
