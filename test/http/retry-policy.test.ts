import { describe, expect, it } from 'vitest';
import {
  backoffMs,
  decideRetry,
  MAX_RETRY_AFTER_MS,
  retryReason,
  wasNotSent,
  type AttemptOutcome,
  type RetryPolicy,
} from '../../src/http/retry-policy.js';

const status = (code: number): AttemptOutcome => ({ kind: 'status', status: code });
const network = (code: string | undefined): AttemptOutcome => ({ kind: 'network', code });

const policy = (idempotent: boolean, maxRetries = 5): RetryPolicy => ({ maxRetries, idempotent, random: () => 0.5 });

describe('decideRetry', () => {
  it.each<[string, AttemptOutcome, boolean, false | string]>([
    ['429 on a read', status(429), true, 'rate-limited'],
    ['429 on a webhook post', status(429), false, 'rate-limited'],
    ['500 on a read', status(500), true, 'server-error'],
    ['502 on a read', status(502), true, 'server-error'],
    ['503 on a read', status(503), true, 'server-error'],
    ['504 on a read', status(504), true, 'server-error'],
    ['500 on a webhook post', status(500), false, false],
    ['501', status(501), true, false],
    ['400', status(400), true, false],
    ['401', status(401), true, false],
    ['402', status(402), true, false],
    ['404', status(404), true, false],
    ['302', status(302), true, false],
    ['ECONNRESET on a read', network('ECONNRESET'), true, 'network'],
    ['UND_ERR_SOCKET on a read', network('UND_ERR_SOCKET'), true, 'network'],
    ['UND_ERR_HEADERS_TIMEOUT on a read', network('UND_ERR_HEADERS_TIMEOUT'), true, 'network'],
    ['UND_ERR_BODY_TIMEOUT on a read', network('UND_ERR_BODY_TIMEOUT'), true, 'network'],
    ['ECONNREFUSED on a webhook post (nothing was sent)', network('ECONNREFUSED'), false, 'network'],
    ['ECONNRESET on a webhook post (rows may be added)', network('ECONNRESET'), false, false],
    ['ENOTFOUND', network('ENOTFOUND'), true, false],
    ['an unknown error', network(undefined), true, false],
    // a tunnel the proxy did not open: nothing reached the service, so even a POST is tried again
    ['a tunnel the proxy closed, on a read', network('TDS_PROXY_TUNNEL_CLOSED'), true, 'network'],
    ['a tunnel the proxy closed, on a webhook post', network('TDS_PROXY_TUNNEL_CLOSED'), false, 'network'],
    ['a proxy 502/503/504 to the CONNECT, on a webhook post', network('TDS_PROXY_UNAVAILABLE'), false, 'network'],
    ['a proxy asking for credentials (407)', network('TDS_PROXY_AUTH_REQUIRED'), true, false],
    ['a proxy asking for credentials (407), on a webhook post', network('TDS_PROXY_AUTH_REQUIRED'), false, false],
    ['a proxy refusing the tunnel (403)', network('TDS_PROXY_REFUSED'), true, false],
  ])('%s → %s', (_name, outcome, idempotent, expected) => {
    const decision = decideRetry(outcome, 0, policy(idempotent));
    expect(decision.retry ? decision.reason : false).toBe(expected);
    expect(retryReason(outcome, idempotent) ?? false).toBe(expected);
  });

  it.each([
    [0, 0, 'exhausted'],
    [0, 1, true],
    [4, 5, true],
    [5, 5, 'exhausted'],
  ])('after %i retries with maxRetries %i: %s', (retriesSoFar, maxRetries, expected) => {
    const decision = decideRetry(status(503), retriesSoFar, policy(true, maxRetries));
    expect(decision.retry || decision.why).toBe(expected);
  });

  it('counts a closed tunnel as an attempt: --max-retries 0 gives up after the first', () => {
    expect(decideRetry(network('TDS_PROXY_TUNNEL_CLOSED'), 0, policy(true, 0))).toEqual({
      retry: false,
      why: 'exhausted',
      reason: 'network',
    });
    expect(decideRetry(network('TDS_PROXY_TUNNEL_CLOSED'), 1, policy(false, 2))).toMatchObject({ retry: true, waitMs: backoffMs(1, 0.5) });
  });

  it('says why it does not retry: a final answer, or retries used up', () => {
    expect(decideRetry(status(404), 0, policy(true))).toEqual({ retry: false, why: 'final' });
    expect(decideRetry(status(500), 5, policy(true))).toEqual({ retry: false, why: 'exhausted', reason: 'server-error' });
  });

  it.each<[string, AttemptOutcome, number, number]>([
    ['429 with retry-after', { kind: 'status', status: 429, retryAfterMs: 2000 }, 1, 2000],
    ['429 without retry-after: the 10 s default', status(429), 1, 10_000],
    ['429 scaled down', { kind: 'status', status: 429, retryAfterMs: 2000 }, 100, 20],
    ['500: backoff with jitter', status(500), 1, 250],
    ['500 scaled down', status(500), 10, 25],
  ])('waits for %s', (_name, outcome, rateScale, waitMs) => {
    expect(decideRetry(outcome, 0, { ...policy(true), rateScale })).toMatchObject({ retry: true, waitMs });
  });
});

describe('decideRetry: a retry-after past the cap', () => {
  const asked = (ms: number): AttemptOutcome => ({ kind: 'status', status: 429, retryAfterMs: ms });

  it('waits a retry-after of exactly 5 minutes', () => {
    expect(MAX_RETRY_AFTER_MS).toBe(300_000);
    expect(decideRetry(asked(MAX_RETRY_AFTER_MS), 0, policy(true))).toEqual({
      retry: true,
      reason: 'rate-limited',
      waitMs: MAX_RETRY_AFTER_MS,
    });
  });

  it.each([
    ['one millisecond more', MAX_RETRY_AFTER_MS + 1],
    ['a day', 86_400_000],
    ['years (an HTTP date far ahead)', 3 * 365 * 86_400_000],
  ])('gives up at once on %s, saying what was asked (read or webhook post)', (_name, ms) => {
    const expected = { retry: false, why: 'wait-too-long', reason: 'rate-limited', askedMs: ms };
    expect(decideRetry(asked(ms), 0, policy(true))).toEqual(expected);
    expect(decideRetry(asked(ms), 0, policy(false))).toEqual(expected);
  });

  it('caps what the service asked, not the wait after TDS_RATE_SCALE', () => {
    expect(decideRetry(asked(MAX_RETRY_AFTER_MS + 1), 0, { ...policy(true), rateScale: 1000 })).toMatchObject({
      retry: false,
      why: 'wait-too-long',
    });
  });
});

describe('decideRetry: a refused connection', () => {
  it('is retried on a remote host and final on a loopback address (nothing listens there)', () => {
    const refused = { kind: 'network', code: 'ECONNREFUSED' } as const;
    expect(decideRetry(refused, 0, policy(true))).toMatchObject({ retry: true, reason: 'network' });
    expect(decideRetry(refused, 0, { ...policy(true), loopback: true })).toEqual({ retry: false, why: 'final' });
    expect(decideRetry({ kind: 'network', code: 'ECONNRESET' }, 0, { ...policy(true), loopback: true })).toMatchObject({ retry: true });
  });
});

describe('wasNotSent', () => {
  it.each([
    ['ECONNREFUSED', true],
    ['UND_ERR_CONNECT_TIMEOUT', true],
    ['EAI_AGAIN', true],
    ['TDS_PROXY_TUNNEL_CLOSED', true],
    ['TDS_PROXY_AUTH_REQUIRED', true],
    ['ECONNRESET', false],
    ['UND_ERR_HEADERS_TIMEOUT', false],
    [undefined, false],
  ])('%s → %s', (code, expected) => expect(wasNotSent(code)).toBe(expected));
});

describe('backoffMs', () => {
  it.each([
    [0, 0, 0],
    [0, 0.999, 499],
    [1, 0.5, 500],
    [2, 0.5, 1000],
    [3, 1, 4000],
    [6, 0.5, 10_000],
    [10, 0.999, 19_980],
    [40, 0.5, 10_000],
  ])('attempt %i with random %d → %i ms', (attempt, random, expected) => {
    expect(backoffMs(attempt, random)).toBe(expected);
  });

  it('honours base and cap', () => {
    expect(backoffMs(3, 0.5, { baseMs: 10, capMs: 1000 })).toBe(40);
    expect(backoffMs(20, 0.5, { baseMs: 10, capMs: 1000 })).toBe(500);
  });
});
