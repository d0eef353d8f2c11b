import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../../../src/http/rate-limiter.js';
import { checkWebhook } from '../../../src/push/deliver/check-webhook.js';
import type { WireResult } from '../../../src/push/deliver/webhook-client.js';
import { webhookTarget } from '../../../src/push/deliver/webhook-target.js';
import { UNIT_RATE_SCALE } from '../../helpers/rate-scale.js';

const response = (status: number, text = ''): WireResult => ({ kind: 'response', status, headers: {}, text, ms: 1 });
const failure = (code: string): WireResult => ({ kind: 'failure', code, message: code, ms: 1 });

/** checkWebhook against scripted HEAD answers; resolves to the error it throws (or 'exists') and the HEADs made. */
async function check(answers: WireResult[], maxRetries = 3): Promise<{ outcome: unknown; heads: number }> {
  let heads = 0;
  const target = webhookTarget('http://127.0.0.1:9/v1/webhook/abcdefghijklmnop');
  const outcome = await checkWebhook({
    client: { head: async () => answers[Math.min(heads++, answers.length - 1)]! },
    target,
    limiter: new RateLimiter({ limit: 100, windowMs: 1 }),
    retry: { maxRetries, rateScale: UNIT_RATE_SCALE, random: () => 0 },
    signal: new AbortController().signal,
  }).then(
    () => 'exists',
    (error: unknown) => error,
  );
  return { outcome, heads };
}

describe('checkWebhook', () => {
  it.each([
    ['200', [response(200)], 'exists', 1],
    ['204', [response(204)], 'exists', 1],
    ['429, then 200', [response(429), response(200)], 'exists', 2],
    ['500, reset, then 200', [response(500), failure('ECONNRESET'), response(200)], 'exists', 3],
  ])('%s → the webhook exists', async (_name, answers, expected, heads) => {
    expect(await check(answers)).toEqual({ outcome: expected, heads });
  });

  it('a 404 is NOT_FOUND (exit 4), at once', async () => {
    const { outcome, heads } = await check([response(404)]);
    expect(outcome).toMatchObject({ code: 'NOT_FOUND', message: expect.stringContaining('does not exist') });
    expect(heads).toBe(1);
  });

  it.each([
    ['405', [response(405, '{"message":"nope"}')], 'API', /HTTP 405: nope; nothing was sent/],
    ['an unknown host', [failure('ENOTFOUND')], 'API', /host not found/],
  ])('%s is a failure that no retry mends', async (_name, answers, code, message) => {
    const { outcome, heads } = await check(answers);
    expect(outcome).toMatchObject({ code, message: expect.stringMatching(message) });
    expect(heads).toBe(1);
  });

  it('gives up (exit 6) after --max-retries, naming the attempts', async () => {
    const { outcome, heads } = await check([response(503)], 2);
    expect(outcome).toMatchObject({ code: 'GAVE_UP', message: expect.stringContaining('HTTP 503 after 3 attempts') });
    expect(heads).toBe(3);
  });
});
