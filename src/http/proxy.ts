import { isIP } from 'node:net';
import type { Dispatcher } from 'undici';
import { isLoopbackHost } from './connection-settings.js';

// Proxies as curl, gh, npm and pip take them from the environment. The rule (proxyFor):
// - https:// goes through HTTPS_PROXY, http:// through HTTP_PROXY (the lower-case name wins when both
//   are set, as curl reads them); a proxy URL without a scheme is http://.
// - NO_PROXY (or no_proxy) lists what goes direct: `*` (everything), host names (a name also covers its
//   sub-domains; a leading `.` or `*.` is the same), IP addresses, each optionally with `:port`.
// - Loopback (localhost, 127.0.0.0/8, ::1) goes direct while NO_PROXY is unset or empty; a NO_PROXY the
//   user set is the whole list, so a loopback target goes through the proxy when NO_PROXY leaves it out.

/** The proxy variables of an environment (ctx.io.env), read once with the settings. */
export interface ProxySettings {
  httpsProxy?: string;
  httpProxy?: string;
  noProxy?: string;
}

/** `{proxy}` when any proxy variable is set, else nothing. */
export function proxySettings(env: NodeJS.ProcessEnv): { proxy?: ProxySettings } {
  const first = (...names: string[]): string | undefined => names.map((name) => env[name]?.trim()).find((value) => value);
  const settings: ProxySettings = {};
  const httpsProxy = first('https_proxy', 'HTTPS_PROXY');
  const httpProxy = first('http_proxy', 'HTTP_PROXY');
  const noProxy = first('no_proxy', 'NO_PROXY');
  if (httpsProxy) settings.httpsProxy = httpsProxy;
  if (httpProxy) settings.httpProxy = httpProxy;
  if (noProxy) settings.noProxy = noProxy;
  return Object.keys(settings).length > 0 ? { proxy: settings } : {};
}

/** The proxy a request to `target` goes through, or undefined to connect directly. */
export function proxyFor(target: URL, settings: ProxySettings): URL | undefined {
  const raw = target.protocol === 'https:' ? settings.httpsProxy : settings.httpProxy;
  if (!raw) return undefined;
  const host = target.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const port = target.port || (target.protocol === 'https:' ? '443' : '80');
  if (settings.noProxy === undefined) return isLoopbackHost(host) ? undefined : proxyUrl(raw);
  return bypassed(host, port, settings.noProxy) ? undefined : proxyUrl(raw);
}

function proxyUrl(raw: string): URL {
  try {
    return new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `http://${raw}`);
  } catch {
    throw new ProxySettingError(`the proxy "${shownProxyText(raw)}" is not a URL (give it as http://HOST:PORT)`);
  }
}

export class ProxySettingError extends Error {}

function bypassed(host: string, port: string, noProxy: string): boolean {
  for (const raw of noProxy.split(/[\s,]+/)) {
    const entry = raw.trim().toLowerCase();
    if (!entry) continue;
    if (entry === '*') return true;
    const { name, entryPort } = splitEntry(entry);
    if (entryPort !== undefined && entryPort !== port) continue;
    if (isIP(name) || isIP(host)) {
      if (name === host) return true;
      continue;
    }
    const domain = name.replace(/^\*?\./, '');
    if (host === domain || host.endsWith(`.${domain}`)) return true;
  }
  return false;
}

function splitEntry(entry: string): { name: string; entryPort?: string } {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  if (bracketed) return { name: bracketed[1]!, ...(bracketed[2] ? { entryPort: bracketed[2] } : {}) };
  if (isIP(entry) === 6) return { name: entry };
  const withPort = /^(.*):(\d+)$/.exec(entry);
  return withPort ? { name: withPort[1]!, entryPort: withPort[2]! } : { name: entry };
}

/** The proxy as messages show it: `http://***@proxy.corp:3128` (a user name and password are never shown). */
export function shownProxy(proxy: URL): string {
  return `${proxy.protocol}//${proxy.username || proxy.password ? '***@' : ''}${proxy.host}`;
}

function shownProxyText(raw: string): string {
  return raw.replace(/\/\/[^@/]*@/, '//***@').replace(/^[^:/]*:[^@/]*@/, '***@');
}

export interface PoolOptions {
  connections: number;
  /** Connect timeout, time to the response headers, and longest silence inside a body. */
  timeoutMs: number;
  pipelining?: number;
  /** The longest a connection is reused after being idle (IDLE_REUSE_MS unless given). */
  idleReuseMs?: number;
}

/**
 * A connection idle this long is not reused: well inside the idle timeout servers close a connection
 * at (Node's 5 s, the emulator's 10 s, 60 s and more behind load balancers). undici keeps an idle
 * connection until 2 s before the timeout the server states, a margin a stall of this process on a
 * loaded machine can eat: the request is then written onto a connection the server is closing, and a
 * POST that fails there is an uncertain batch.
 */
export const IDLE_REUSE_MS = 4_000;

/**
 * A keep-alive pool for one origin, reached directly or through a proxy (a CONNECT tunnel per
 * connection, also for http://). Either way it never follows a redirect, so headers stay with the origin.
 * Requests must give `origin`.
 */
export async function originPool(origin: string, options: PoolOptions, proxy?: URL): Promise<Dispatcher> {
  const { Pool, ProxyAgent } = await import('undici');
  const { connections, timeoutMs, pipelining, idleReuseMs = IDLE_REUSE_MS } = options;
  const common = {
    connections,
    keepAliveMaxTimeout: idleReuseMs,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    // without a stated timeout too
    keepAliveTimeout: idleReuseMs,
    ...(pipelining !== undefined ? { pipelining } : {}),
  };
  if (!proxy) return new Pool(origin, { ...common, connect: { timeout: timeoutMs } });
  return new ProxyAgent({ uri: proxy.href, ...common, proxyTls: { timeout: timeoutMs }, requestTls: { timeout: timeoutMs } });
}
