import { describe, expect, it } from 'vitest';
import { isLoopbackHost, parseBaseUrl, checkKeyText } from '../../src/http/connection-settings.js';
import { TdsError } from '../../src/core/errors.js';
import { configKey } from '../../src/config/keys.js';
import { ApiClient } from '../../src/http/client.js';

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

/** The error checkKeyText throws for `key`, or undefined when it accepts it. */
function refusal(key: string): TdsError | undefined {
  try {
    checkKeyText(key);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(TdsError);
    return error as TdsError;
  }
}

/** Everything of an error that can reach the user's terminal. */
const shown = (error: TdsError): string => [error.message, error.hint ?? '', String(error)].join('\n');

describe('checkKeyText', () => {
  it.each([
    ['letters, digits and punctuation', 'tds_live_9f8e7d6c5b4a-._~'],
    ['the first and last visible ASCII characters', '!tds_key~'],
    ['a single character', 'k'],
  ])('accepts a key of %s', (_name, key) => {
    expect(refusal(key)).toBeUndefined();
  });

  it.each([
    ['empty', ''],
    ['Latin-1 letters (é, ü)', 'tds_clé_ünïcode_secret'],
    ['a euro sign (outside Latin-1)', 'tds_price€_secret'],
    ['Cyrillic letters (outside Latin-1)', 'tds_ключ_secret'],
    ['CJK characters (outside Latin-1)', 'tds_密钥_secret'],
    ['an emoji (outside the BMP)', 'tds_🔑_secret'],
    ['curly quotes from a pasted document', '“tds_quoted_secret”'],
    ['a non-breaking space', 'tds_nbsp\u00a0secret'],
    ['a space', 'tds_two words_secret'],
    ['a trailing line break (a key file written with echo)', 'tds_line_secret\n'],
    ['a CR LF and a header (header injection)', 'tds_secret\r\nx-evil: 1'],
    ['a tab', 'tds_tab\tsecret'],
    ['a NUL', 'tds_nul\u0000secret'],
    ['DEL', 'tds_del\u007fsecret'],
  ])('refuses a key with %s: a usage error (exit 2) that does not show the key', (_name, key) => {
    const error = refusal(key);
    expect(error).toBeDefined();
    expect(error).toMatchObject({ code: 'USAGE', reason: 'bad-key-text' });
    expect(error!.exitCode).toBe(2);
    if (key !== '') {
      const text = shown(error!);
      expect(text).not.toContain(key);
      expect(text).not.toContain('secret');
    }
  });

  it('refuses every character outside visible ASCII, one at a time', () => {
    const refused: number[] = [];
    for (let code = 0; code <= 0x2ff; code += 1) if (refusal(`k${String.fromCharCode(code)}k`)) refused.push(code);
    const expected = Array.from({ length: 0x300 }, (_, code) => code).filter((code) => code < 0x21 || code > 0x7e);
    expect(refused).toEqual(expected);
  });
});

describe('where a key enters tds', () => {
  it('an API client with a non-ASCII key is refused when it is made, before any request', () => {
    expect(() => new ApiClient({ baseUrl: 'https://127.0.0.1/v1', apiKey: 'tds_ключ_secret' })).toThrow(
      expect.objectContaining({ code: 'USAGE', reason: 'bad-key-text' }),
    );
  });

  it('`tds config set api-key` refuses it too', () => {
    expect(() => configKey('api-key').normalize('tds_€_secret')).toThrow(
      expect.objectContaining({ code: 'USAGE', reason: 'bad-key-text' }),
    );
  });
});
