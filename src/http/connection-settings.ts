// What a user gives to reach the service, checked before any request: the base URL (https://, ending in /v1,
// plain http:// only to a loopback host) and the API key's text.

import { isIP } from 'node:net';
import { UsageError } from '../core/options.js';

export interface BaseUrl {
  /** `https://host:port`: the only origin the API key is ever sent to. */
  origin: string;
  /** Path prefix of every request, e.g. `/v1` (no trailing slash). */
  basePath: string;
  /** The normalized URL, e.g. `https://host/v1`. */
  href: string;
  /** `host:port` for messages. */
  host: string;
}

/**
 * Checks a base URL: http(s) only, ends in `/v1`, no credentials, query or fragment, and plain
 * `http://` only for loopback hosts (the key would travel in clear text otherwise).
 */
export function parseBaseUrl(text: string): BaseUrl {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new UsageError(`the base URL "${text}" is not a URL`, { reason: 'bad-base-url' });
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new UsageError(`the base URL must use https:// (got ${url.protocol}//)`, { reason: 'bad-base-url' });
  }
  if (url.username || url.password) {
    throw new UsageError('the base URL must not contain a user name or password', { reason: 'bad-base-url' });
  }
  if (url.search || url.hash) {
    throw new UsageError('the base URL must not have a query string or fragment', { reason: 'bad-base-url' });
  }
  const basePath = url.pathname.replace(/\/+$/, '');
  if (!/\/v1$/.test(basePath)) {
    throw new UsageError(`the base URL must end in /v1 (got ${url.origin}${url.pathname})`, {
      hint: `did you mean ${url.origin}${basePath}/v1 ?`,
    });
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw new UsageError(`refusing plain http:// to ${url.host}: the API key would travel unencrypted`, {
      hint: 'use https://, or http:// only for a loopback host such as 127.0.0.1 or localhost',
    });
  }
  return { origin: url.origin, basePath, href: `${url.origin}${basePath}`, host: url.host };
}

export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  if (isIP(host) === 6) return host === '::1' || /^::ffff:127\./.test(host) || /^::ffff:7f/.test(host);
  return false;
}

/**
 * An API key travels in a header, which carries visible ASCII only: a key with spaces, control or
 * non-ASCII characters (a pasted line break, curly quotes) is refused before any request (exit 2).
 */
export function checkKeyText(key: string): void {
  if (key === '') throw new UsageError('the API key is empty', { reason: 'bad-key-text' });
  if (/[^\x21-\x7e]/.test(key)) {
    const what = /[\s\u0000-\u001f\u007f]/.test(key)
      ? 'spaces or control characters'
      : 'characters an HTTP header cannot carry (only visible ASCII)';
    throw new UsageError(`the API key contains ${what}`, { reason: 'bad-key-text' });
  }
}
