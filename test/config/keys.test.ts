import { describe, expect, it } from 'vitest';
import { configKey, displayValue, redactKey } from '../../src/config/keys.js';

describe('config keys', () => {
  it.each([
    ['base-url', 'https://api.example.com/v1/', 'https://api.example.com/v1'],
    ['default-format', 'ndjson', 'ndjson'],
    ['max-retries', '3', '3'],
    ['timeout', '2.5', '2.5'],
    ['api-key', 'tds_abc', 'tds_abc'],
    ['webhook.signups', 'https://hooks.example.com/w/abc', 'https://hooks.example.com/w/abc'],
  ])('%s accepts %s', (name, value, stored) => {
    expect(configKey(name).normalize(value)).toBe(stored);
  });

  it.each([
    ['base-url', 'http://example.com/v1', /refusing plain http/],
    ['default-format', 'xml', /must be one of table, csv, tsv, ndjson, json/],
    ['max-retries', '99', /from 0 to 20/],
    ['api-key', 'two words', /spaces/],
    ['webhook.signups', 'not a url', /not a URL/],
  ])('%s refuses %s', (name, value, pattern) => {
    expect(() => configKey(name).normalize(value)).toThrow(pattern);
  });

  it('refuses unknown keys and bad webhook names, listing the known keys', () => {
    expect(() => configKey('colour')).toThrow(/unknown config key "colour"/);
    expect(() => configKey('webhook.bad name')).toThrow(/not a webhook name/);
  });

  it('marks the API key and webhooks as secrets', () => {
    expect(configKey('api-key').secret).toBe(true);
    expect(configKey('webhook.x').secret).toBe(true);
    expect(configKey('base-url').secret).toBe(false);
  });

  it.each([
    ['api-key', 'tds_demo_acme_7Kq2xV9mPz4LwR8n', '****wR8n'],
    ['api-key', 'short', '****'],
    ['webhook.in', 'https://h.example/v1/webhook/abcdefghijklmnop', 'https://h.example/v1/webhook/…mnop'],
    ['hand-edited', 'anything', '****'],
    ['base-url', 'https://a.example/v1', 'https://a.example/v1'],
  ])('shows %s redacted', (name, value, shown) => {
    expect(displayValue(name, value)).toBe(shown);
  });

  it('redactKey never shows more than 4 characters', () => {
    expect(redactKey('abcdefghijklmnopqrstuvwxyz')).toBe('****wxyz');
  });
});
