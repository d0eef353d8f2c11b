import { describe, expect, it } from 'vitest';
import { redactSecrets, redactWebhookUrl } from '../../src/core/redact.js';

describe('redactWebhookUrl', () => {
  it.each([
    ['http://127.0.0.1:8787/v1/webhook/wh_abcdefgh-1234_wxyz', 'http://127.0.0.1:8787/v1/webhook/…wxyz'],
    ['https://hooks.example.com/abc', 'https://hooks.example.com/…'],
    ['not a url', '<webhook URL>'],
  ])('%s → %s', (url, expected) => expect(redactWebhookUrl(url)).toBe(expected));
});

describe('redactSecrets', () => {
  it('replaces every occurrence of each secret', () => {
    expect(redactSecrets('key=abcd1234 again abcd1234 url=x', ['abcd1234', undefined, 'x'])).toBe('key=*** again *** url=x');
  });
});
