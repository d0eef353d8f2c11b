import { setTimeout } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { TdsError } from '../../src/core/errors.js';
import { startScriptedServer } from '../helpers/scripted-server.js';
import { originPool, proxyFor, proxySettings, shownProxy, type ProxySettings } from '../../src/http/proxy.js';

// The proxy rule (proxy.ts), as a table: which proxy a request to a URL goes through, if any.

const P = 'http://proxy.corp:3128';

describe('proxyFor', () => {
  it.each<[string, ProxySettings, string | undefined]>([
    ['https://api.example.com/v1', { httpsProxy: P }, 'http://proxy.corp:3128/'],
    ['https://api.example.com/v1', { httpProxy: P }, undefined],
    ['http://api.example.com/v1', { httpProxy: 'proxy.corp:8080' }, 'http://proxy.corp:8080/'],
    ['https://api.example.com/v1', { httpsProxy: P, noProxy: '*' }, undefined],
    ['https://api.example.com/v1', { httpsProxy: P, noProxy: 'example.com' }, undefined],
    ['https://api.example.com/v1', { httpsProxy: P, noProxy: '.example.com' }, undefined],
    ['https://api.example.com/v1', { httpsProxy: P, noProxy: '*.example.com' }, undefined],
    ['https://example.com/v1', { httpsProxy: P, noProxy: '.example.com' }, undefined],
    ['https://notexample.com/v1', { httpsProxy: P, noProxy: 'example.com' }, 'http://proxy.corp:3128/'],
    ['https://api.example.com/v1', { httpsProxy: P, noProxy: 'example.com:8443' }, 'http://proxy.corp:3128/'],
    ['https://api.example.com:8443/v1', { httpsProxy: P, noProxy: 'other.org, example.com:8443' }, undefined],
    ['https://10.1.2.3/v1', { httpsProxy: P, noProxy: '10.1.2.3' }, undefined],
    ['https://10.1.2.30/v1', { httpsProxy: P, noProxy: '10.1.2.3' }, 'http://proxy.corp:3128/'],
    ['https://[2001:db8::1]/v1', { httpsProxy: P, noProxy: '[2001:db8::1]' }, undefined],
    // loopback: direct while NO_PROXY is unset; a NO_PROXY the user set is the whole list
    ['http://127.0.0.1:8787/v1', { httpProxy: P }, undefined],
    ['http://localhost:8787/v1', { httpProxy: P }, undefined],
    ['http://[::1]:8787/v1', { httpProxy: P }, undefined],
    ['http://127.0.0.1:8787/v1', { httpProxy: P, noProxy: 'example.com' }, 'http://proxy.corp:3128/'],
    ['http://127.0.0.1:8787/v1', { httpProxy: P, noProxy: 'localhost,127.0.0.1' }, undefined],
    // CIDR ranges (curl since 7.86): IPv4 and IPv6; a name is never looked up for them
    ['http://127.0.0.1:8787/v1', { httpProxy: P, noProxy: '127.0.0.0/8' }, undefined],
    ['http://127.9.8.7:8787/v1', { httpProxy: P, noProxy: 'example.com, 127.0.0.0/8' }, undefined],
    ['https://10.1.2.3/v1', { httpsProxy: P, noProxy: '10.0.0.0/8' }, undefined],
    ['https://11.1.2.3/v1', { httpsProxy: P, noProxy: '10.0.0.0/8' }, 'http://proxy.corp:3128/'],
    ['https://192.168.1.200/v1', { httpsProxy: P, noProxy: '192.168.1.128/25' }, undefined],
    ['https://192.168.1.127/v1', { httpsProxy: P, noProxy: '192.168.1.128/25' }, 'http://proxy.corp:3128/'],
    ['https://10.1.2.3/v1', { httpsProxy: P, noProxy: '0.0.0.0/0' }, undefined],
    ['https://10.1.2.3/v1', { httpsProxy: P, noProxy: '10.1.2.3/32' }, undefined],
    ['https://10.1.2.4/v1', { httpsProxy: P, noProxy: '10.1.2.3/32' }, 'http://proxy.corp:3128/'],
    ['https://[fd12:3456::1]/v1', { httpsProxy: P, noProxy: 'fd00::/8' }, undefined],
    ['https://[fe80::1]/v1', { httpsProxy: P, noProxy: 'fd00::/8' }, 'http://proxy.corp:3128/'],
    ['https://[2001:db8::1]/v1', { httpsProxy: P, noProxy: '2001:db8::/32' }, undefined],
    ['https://[2001:db9::1]/v1', { httpsProxy: P, noProxy: '2001:db8::/32' }, 'http://proxy.corp:3128/'],
    ['https://[::ffff:10.1.2.3]/v1', { httpsProxy: P, noProxy: '10.0.0.0/8' }, undefined],
    ['https://10.1.2.3/v1', { httpsProxy: P, noProxy: 'fd00::/8' }, 'http://proxy.corp:3128/'],
    ['https://ten.example/v1', { httpsProxy: P, noProxy: '10.0.0.0/8' }, 'http://proxy.corp:3128/'],
    // not a range: a prefix too long is no entry that matches
    ['https://10.1.2.3/v1', { httpsProxy: P, noProxy: '10.0.0.0/33' }, 'http://proxy.corp:3128/'],
  ])('%s with %j → %s', (url, settings, expected) => {
    expect(proxyFor(new URL(url), settings)?.href).toBe(expected);
  });
});

describe('a proxy variable that is not a proxy URL', () => {
  it.each([
    ['http://alice:pw@127.0.0.1:notaport', /^the proxy "http:\/\/\*\*\*@127\.0\.0\.1:notaport" is not a URL$/],
    ['alice:pw@proxy.corp:x', /^the proxy "\*\*\*@proxy\.corp:x" is not a URL$/],
    ['socks5://alice:pw@proxy.corp:1080', /^the proxy "socks5:\/\/\*\*\*@proxy\.corp:1080" is not an http:\/\/ or https:\/\/ proxy$/],
  ])('%s: a usage error (exit 2) that never shows the password', (raw, message) => {
    let error: unknown;
    try {
      proxyFor(new URL('https://api.example.com/v1'), { httpsProxy: raw });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(TdsError);
    expect((error as TdsError).exitCode).toBe(2);
    expect((error as TdsError).message).toMatch(message);
    expect((error as TdsError).message).not.toContain('pw');
  });
});

describe('proxySettings', () => {
  it('reads the upper- and lower-case names, the lower-case one first, as curl does', () => {
    expect(proxySettings({ HTTPS_PROXY: 'http://a:1', https_proxy: 'http://b:2', NO_PROXY: 'x' })).toEqual({
      proxy: { httpsProxy: 'http://b:2', noProxy: 'x' },
    });
    expect(proxySettings({ HTTP_PROXY: ' ', PATH: '/bin' })).toEqual({});
  });
});

describe('shownProxy', () => {
  it('never shows a user name or password', () => {
    expect(shownProxy(new URL('http://alice:s3cret@proxy.corp:3128'))).toBe('http://***@proxy.corp:3128');
    expect(shownProxy(new URL('https://proxy.corp'))).toBe('https://proxy.corp');
  });
});

describe('originPool', () => {
  it('does not reuse a connection idle longer than idleReuseMs, however long the server keeps it', async () => {
    // the emulator keeps an idle connection 10 s and says so; undici alone would reuse it for 8 s
    const server = await startScriptedServer(() => ({ status: 200, body: 'ok' }), { keepAliveTimeout: 10_000 });
    const origin = server.origin;
    const pool = await originPool(origin, { connections: 1, timeoutMs: 5_000, idleReuseMs: 200 });
    try {
      const get = async (): Promise<void> => void (await (await pool.request({ origin, method: 'GET', path: '/' })).body.text());
      await get();
      await get();
      expect(server.connections).toBe(1);
      await setTimeout(500);
      await get();
      expect(server.connections).toBe(2);
    } finally {
      await pool.close();
      await server.close();
    }
  });
});
