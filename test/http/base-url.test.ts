import { describe, expect, it } from 'vitest';
import { isLoopbackHost, parseBaseUrl } from '../../src/http/base-url.js';

describe('parseBaseUrl', () => {
  it.each([
    ['https://api.example.com/v1', 'https://api.example.com', '/v1'],
    ['https://api.example.com/v1/', 'https://api.example.com', '/v1'],
    ['https://api.example.com:8443/tds/v1', 'https://api.example.com:8443', '/tds/v1'],
    ['http://127.0.0.1:8787/v1', 'http://127.0.0.1:8787', '/v1'],
    ['http://localhost:8787/v1', 'http://localhost:8787', '/v1'],
    ['http://[::1]:8787/v1', 'http://[::1]:8787', '/v1'],
  ])('%s', (text, origin, basePath) => {
    expect(parseBaseUrl(text)).toMatchObject({ origin, basePath, href: `${origin}${basePath}` });
  });

  it.each([
    ['http://api.example.com/v1', /refusing plain http:\/\//],
    ['http://10.0.0.1/v1', /refusing plain http:\/\//],
    ['http://localhost.evil.com/v1', /refusing plain http:\/\//],
    ['https://api.example.com', /must end in \/v1/],
    ['https://api.example.com/v1?key=1', /query string/],
    ['https://a:b@api.example.com/v1', /user name or password/],
    ['file:///v1', /must use https/],
    ['not a url', /is not a URL/],
  ])('refuses %s', (text, pattern) => {
    expect(() => parseBaseUrl(text)).toThrow(pattern);
  });
});

describe('isLoopbackHost', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.8.9.10', true],
    ['localhost', true],
    ['[::1]', true],
    ['::ffff:127.0.0.1', true],
    ['128.0.0.1', false],
    ['example.com', false],
    ['0.0.0.0', false],
  ])('%s → %s', (host, expected) => expect(isLoopbackHost(host)).toBe(expected));
});
