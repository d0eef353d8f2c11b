import { describe, expect, it } from 'vitest';
import { describeAttempts, errorFromNetwork, errorFromResponse, serviceMessage, withoutSecrets } from '../../src/http/errors.js';

const body = (status: number, message: string) => ({ statusCode: status, error: 'API Error', message });

describe('errorFromResponse', () => {
  it.each([
    [400, 'USAGE', 2, undefined],
    [401, 'AUTH', 3, 'bad-key'],
    [402, 'PAUSED', 5, 'paused'],
    [404, 'NOT_FOUND', 4, 'table-not-found'],
    [429, 'GAVE_UP', 6, undefined],
    [500, 'GAVE_UP', 6, undefined],
    [503, 'GAVE_UP', 6, undefined],
    // statuses the spec does not list: the service is at fault, as with any answer it rules out
    [409, 'SERVICE_FAULT', 6, undefined],
    [501, 'SERVICE_FAULT', 6, undefined],
  ])('HTTP %i → %s (exit %i)', (status, code, exit, reason) => {
    const error = errorFromResponse({ what: 'list tables', status, body: body(status, 'It failed') });
    expect(error.code).toBe(code);
    expect(error.exitCode).toBe(exit);
    expect(error.status).toBe(status);
    expect(error.message).toBe(`list tables: It failed (HTTP ${status})`);
    expect(error.reason).toBe(reason);
    expect(error.hint).toBeUndefined();
  });

  it('names every attempt when retries ran out', () => {
    const error = errorFromResponse({
      what: 'read rows of table t1',
      status: 500,
      body: body(500, 'Internal error'),
      attempts: [
        { kind: 'status', status: 500 },
        { kind: 'network', code: 'ECONNRESET' },
        { kind: 'status', status: 500 },
      ],
    });
    expect(error.code).toBe('GAVE_UP');
    expect(error.message).toBe(
      'read rows of table t1: gave up after 3 attempts (HTTP 500 ×2, connection reset ×1): Internal error (HTTP 500)',
    );
  });

  it('keeps the code of a final non-retryable answer after retries', () => {
    const error = errorFromResponse({
      what: 'list tables',
      status: 401,
      body: body(401, 'Unauthorized'),
      attempts: [
        { kind: 'status', status: 503 },
        { kind: 'status', status: 401 },
      ],
    });
    expect(error.code).toBe('AUTH');
  });

  it('falls back to the body text or the status when the body is not the error shape', () => {
    expect(errorFromResponse({ what: 'x', status: 502, body: '<html>Bad\n gateway</html>' }).message).toBe('x: Bad gateway (HTTP 502)');
    expect(errorFromResponse({ what: 'x', status: 502, body: 'upstream said\nno' }).message).toBe('x: upstream said no (HTTP 502)');
    expect(errorFromResponse({ what: 'x', status: 502, body: '' }).message).toBe('x: the service answered HTTP 502 (HTTP 502)');
  });
});

describe('errorFromNetwork', () => {
  it('gives up on a retryable failure with the address and a hint', () => {
    const error = errorFromNetwork({
      what: 'list workspaces',
      error: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
      attempts: [{ kind: 'network', code: 'ECONNREFUSED' }],
      retryable: true,
      target: 'tds.example:443',
    });
    expect(error.code).toBe('GAVE_UP');
    expect(error.message).toBe('list workspaces: tds.example:443: connection refused (ECONNREFUSED)');
    expect(error.reason).toBe('unreachable');
  });

  it.each(['127.0.0.1:9999', 'localhost:9999', '[::1]:9999'])('says nothing listens on a loopback address (%s)', (target) => {
    const error = errorFromNetwork({
      what: 'list workspaces',
      error: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
      attempts: [{ kind: 'network', code: 'ECONNREFUSED' }],
      retryable: true,
      target,
    });
    expect(error.message).toBe(`list workspaces: nothing listens on ${target} — is \`tds emulator\` running?`);
    expect(error.reason).toBe('unreachable');
  });

  it('finds the code through `cause`', () => {
    const error = errorFromNetwork({
      what: 'x',
      error: new TypeError('fetch failed', { cause: Object.assign(new Error('nope'), { code: 'ENOTFOUND' }) }),
      attempts: [{ kind: 'network', code: 'ENOTFOUND' }],
      retryable: false,
      target: 'h:1',
    });
    expect(error.code).toBe('API');
    expect(error.message).toBe('x: h:1: host not found (ENOTFOUND)');
  });
});

describe('helpers', () => {
  it('describes attempts', () => {
    expect(describeAttempts([{ kind: 'status', status: 429 }])).toBe('1 attempt (HTTP 429 ×1)');
  });

  it('cuts a long service message to one line', () => {
    expect(serviceMessage({ message: 'a\nb' })).toBe('a b');
    expect(serviceMessage({ message: 'x'.repeat(400) })).toHaveLength(201);
    expect(serviceMessage({ other: 1 })).toBeUndefined();
  });

  it.each([
    ['<!DOCTYPE html><html><head><title>503 Service Unavailable</title></head><body>…</body></html>', '503 Service Unavailable'],
    ['<html><body><h1>Bad &amp; gateway</h1><script>var x = 1;</script></body></html>', 'Bad & gateway'],
    ['<html><body><p>Rate limited &#8212; try later</p><style>p{}</style></body></html>', 'Rate limited — try later'],
    ['<div>\u0007 beep</div>', 'beep'],
  ])('reads an HTML error page as one line of words: %j', (body, expected) => {
    expect(serviceMessage(body)).toBe(expected);
  });

  it('keeps secrets out of messages and hints (withoutSecrets)', () => {
    const error = errorFromResponse({ what: 'x', status: 400, body: { message: 'bad Bearer sk_live_123456' } });
    const clean = withoutSecrets(error, ['sk_live_123456']);
    expect(clean.message).toBe('x: bad Bearer *** (HTTP 400)');
    expect(clean.code).toBe(error.code);
    expect(withoutSecrets(error, ['absent-secret'])).toBe(error);
  });
});

// Regression: an HTML error page's named entities were looked up in a plain object (case folded), so
// `&constructor;` became the text of a function.

describe('serviceMessage: entities of an HTML error page', () => {
  it.each([
    ['<html><title>Bad &constructor; gateway</title></html>', 'Bad &constructor; gateway'],
    ['<html><h1>&CONSTRUCTOR;&AMP;&constructor</h1></html>', '&CONSTRUCTOR;&&constructor'],
  ])('%j reads %j', (body, expected) => expect(serviceMessage(body)).toBe(expected));
});
