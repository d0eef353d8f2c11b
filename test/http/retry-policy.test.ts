import { describe, expect, it } from 'vitest';
import { backoffMs, shouldRetry, type AttemptOutcome } from '../../src/http/retry-policy.js';

const status = (code: number): AttemptOutcome => ({ kind: 'status', status: code });
const network = (code: string | undefined): AttemptOutcome => ({ kind: 'network', code });

describe('shouldRetry', () => {
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
  ])('%s → %s', (_name, outcome, idempotent, expected) => {
    const decision = shouldRetry({ outcome, retriesSoFar: 0, maxRetries: 5, idempotent });
    expect(decision.retry ? decision.reason : false).toBe(expected);
  });

  it.each([
    [0, 0, false],
    [0, 1, true],
    [4, 5, true],
    [5, 5, false],
  ])('after %i retries with maxRetries %i: retry %s', (retriesSoFar, maxRetries, expected) => {
    expect(shouldRetry({ outcome: status(503), retriesSoFar, maxRetries, idempotent: true }).retry).toBe(expected);
  });
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
