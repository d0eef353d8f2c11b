import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/core/errors.js';
import { pushArguments, webhookTarget } from '../../../src/push/deliver/webhook-target.js';

const SECRET = 'https://hooks.example.com/v1/webhook/wh_Secret-1234_abcdWXYZ';

describe('pushArguments', () => {
  it.each([
    [[SECRET, 'data.csv'], { webhook: SECRET, input: 'data.csv' }],
    [['@signups', '-'], { webhook: '@signups', input: '-' }],
    [[SECRET], { webhook: SECRET, input: '-' }],
    [['@signups'], { webhook: '@signups', input: '-' }],
    [['data.csv'], { input: 'data.csv' }],
    [[], { input: '-' }],
  ])('%j → %j', (args, expected) => expect(pushArguments(args)).toEqual(expected));
});

describe('webhookTarget', () => {
  it('shows only the host and the last 4 characters, and redacts the URL and its id anywhere', () => {
    const target = webhookTarget(SECRET);
    expect(target.displayUrl).toBe('https://hooks.example.com/v1/webhook/…WXYZ');
    expect(target.redact(`failed: ${SECRET} (id wh_Secret-1234_abcdWXYZ)`)).not.toContain('Secret');
    expect(target.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(target.fingerprint).not.toContain('Secret');
  });

  it.each([['http://127.0.0.1:8787/v1/webhook/abcdefghij'], ['http://localhost/hook/abcdefghij'], ['http://[::1]:9/hook/abcdefghij']])(
    'accepts plain http for loopback: %s',
    (url) => expect(webhookTarget(url).url.href).toBe(new URL(url).href),
  );

  it.each([
    ['http://hooks.example.com/v1/webhook/wh_Secret-1234_abcdWXYZ', /refusing plain http/],
    ['ftp://hooks.example.com/wh_Secret-1234_abcdWXYZ', /must use https/],
    ['hooks.example.com/wh_Secret-1234_abcdWXYZ', /not a valid URL/],
    ['https://user:pw@hooks.example.com/wh_Secret-1234_abcdWXYZ', /user name or password/],
  ])('refuses %s without echoing it', (url, message) => {
    let error: unknown;
    try {
      webhookTarget(url);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toContain('Secret');
  });
});
