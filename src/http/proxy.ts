import { BlockList, isIP } from 'node:net';
import type { Client, Dispatcher } from 'undici';
import { UsageError } from '../core/index.js';
import { isLoopbackHost } from './connection-settings.js';

// Proxies as curl, gh, npm and pip take them from the environment. The rule (proxyFor):
// - https:// goes through HTTPS_PROXY, http:// through HTTP_PROXY (the lower-case name wins when both
//   are set, as curl reads them); a proxy URL without a scheme is http://.
// - NO_PROXY (or no_proxy) lists what goes direct: `*` (everything), host names (a name also covers its
//   sub-domains; a leading `.` or `*.` is the same), IP addresses, each optionally with `:port`, and IPv4 or
//   IPv6 ranges in CIDR notation (`10.0.0.0/8`, `fd00::/8`; as curl since 7.86; no name is looked up for them).
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

/** A proxy variable's value as a URL; a bad one is a usage error (exit 2) that never shows its password. */
function proxyUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `http://${raw}`);
  } catch {
    throw new UsageError(`the proxy "${shownProxyText(raw)}" is not a URL`, { hint: PROXY_FORM });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`the proxy "${shownProxy(url)}" is not an http:// or https:// proxy`, { hint: PROXY_FORM });
  }
  return url;
}

const PROXY_FORM = 'give it as http://HOST:PORT (or http://USER:PASSWORD@HOST:PORT) in HTTPS_PROXY or HTTP_PROXY';

function bypassed(host: string, port: string, noProxy: string): boolean {
  for (const raw of noProxy.split(/[\s,]+/)) {
    const entry = raw.trim().toLowerCase();
    if (!entry) continue;
    if (entry === '*') return true;
    const { name, entryPort } = splitEntry(entry);
    if (entryPort !== undefined && entryPort !== port) continue;
    const range = cidr(name);
    if (range) {
      if (range.check(host)) return true;
      continue;
    }
    if (isIP(name) || isIP(host)) {
      if (name === host) return true;
      continue;
    }
    const domain = name.replace(/^\*?\./, '');
    if (host === domain || host.endsWith(`.${domain}`)) return true;
  }
  return false;
}

/** `10.0.0.0/8` or `fd00::/8` as a range that checks an address (its check is false for a name); else undefined. */
function cidr(entry: string): { check(host: string): boolean } | undefined {
  const match = /^(.+)\/(\d{1,3})$/.exec(entry);
  const version = match ? isIP(match[1]!) : 0;
  if (!match || version === 0) return undefined;
  const prefix = Number(match[2]);
  if (prefix > (version === 4 ? 32 : 128)) return undefined;
  const list = new BlockList();
  const type = version === 4 ? 'ipv4' : 'ipv6';
  list.addSubnet(match[1]!, prefix, type);
  return {
    check: (host) => {
      const hostVersion = isIP(host);
      // an IPv4-mapped IPv6 address (::ffff:10.1.2.3) is in an IPv4 range, as BlockList reckons it
      return hostVersion !== 0 && list.check(host, hostVersion === 4 ? 'ipv4' : 'ipv6');
    },
  };
}

function splitEntry(entry: string): { name: string; entryPort?: string } {
  if (/^[^/]+\/\d+$/.test(entry) && isIP(entry.replace(/\/\d+$/, ''))) return { name: entry };
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
 * Requests must give `origin`. A tunnel the proxy does not open fails its requests with one of the
 * PROXY_ codes below; its credentials (the proxy URL's user name and password) go as Proxy-Authorization.
 */
export async function originPool(origin: string, options: PoolOptions, proxy?: URL): Promise<Dispatcher> {
  // undici is CommonJS: its `default` is its exports, as Node imports it and from the bundle (scripts/bundle.js)
  const { Client, Pool, ProxyAgent } = (await import('undici')).default;
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
  const credentials = proxy.username !== '' || proxy.password !== '';
  const token = credentials
    ? `Basic ${Buffer.from(`${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`).toString('base64')}`
    : undefined;
  const uri = new URL(proxy.href);
  uri.username = '';
  uri.password = '';
  const tunnel = { variable: new URL(origin).protocol === 'https:' ? 'HTTPS_PROXY' : 'HTTP_PROXY', credentials };
  return new ProxyAgent({
    uri: uri.href,
    ...(token ? { token } : {}),
    ...common,
    proxyTls: { timeout: timeoutMs },
    requestTls: { timeout: timeoutMs },
    // the CONNECT waits for the proxy's answer no longer than any request waits for its headers
    clientFactory: (url: URL, clientOptions: object) =>
      tunnelFailures(new Client(url, { ...clientOptions, headersTimeout: timeoutMs }), tunnel),
  });
}

/** The proxy closed the connection before it opened the tunnel: nothing reached the origin; worth another try. */
export const PROXY_TUNNEL_CLOSED = 'TDS_PROXY_TUNNEL_CLOSED';
/** The proxy answered the CONNECT with 502, 503 or 504: nothing reached the origin; worth another try. */
export const PROXY_UNAVAILABLE = 'TDS_PROXY_UNAVAILABLE';
/** 407: the proxy wants credentials, or refused those given. */
export const PROXY_AUTH_REQUIRED = 'TDS_PROXY_AUTH_REQUIRED';
/** Any other answer but 200 to the CONNECT (403: the proxy does not let tds reach that host). */
export const PROXY_REFUSED = 'TDS_PROXY_REFUSED';

export const PROXY_CODES: readonly string[] = [PROXY_TUNNEL_CLOSED, PROXY_UNAVAILABLE, PROXY_AUTH_REQUIRED, PROXY_REFUSED];

/** Which variable named the proxy, and whether it held credentials: what a proxy's refusal says to do. */
export interface TunnelFacts {
  variable: string;
  credentials: boolean;
}

/** A tunnel the proxy did not open: its code, the proxy's status, and the facts to word it. */
export type TunnelError = Error & { code: string; statusCode?: number; tunnel: TunnelFacts };

/**
 * undici keeps a request queued while the CONNECT of its connection fails with a socket error, and
 * opens another tunnel at once, for ever (a proxy that drops every CONNECT spun a core at 3,600 tunnels
 * a second); any other status than 200 fails as "aborted". Each becomes an error with a code of its
 * own, which fails the queued requests: the retry loop then decides, with --max-retries and backoff.
 */
function tunnelFailures(client: Client, tunnel: TunnelFacts): Client {
  const open = client.connect.bind(client) as (options: Dispatcher.ConnectOptions) => Promise<Dispatcher.ConnectData>;
  const connect = async (options: Dispatcher.ConnectOptions): Promise<Dispatcher.ConnectData> => {
    let data: Dispatcher.ConnectData;
    try {
      data = await open(options);
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (typeof code === 'string' && CLOSED_CODES.includes(code)) throw tunnelError(PROXY_TUNNEL_CLOSED, tunnel, undefined, error);
      throw error;
    }
    const status = data.statusCode;
    if (status === 200) return data;
    data.socket.destroy();
    const code = status === 407 ? PROXY_AUTH_REQUIRED : [502, 503, 504].includes(status) ? PROXY_UNAVAILABLE : PROXY_REFUSED;
    throw tunnelError(code, tunnel, status);
  };
  return Object.assign(client, { connect });
}

const CLOSED_CODES = ['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE', 'UND_ERR_CLOSED'];

function tunnelError(code: string, tunnel: TunnelFacts, statusCode?: number, cause?: unknown): TunnelError {
  const answer = statusCode === undefined ? 'closed the connection' : `answered HTTP ${statusCode}`;
  const error = new Error(`the proxy ${answer} instead of opening the tunnel`, cause === undefined ? undefined : { cause });
  return Object.assign(error, { code, tunnel, ...(statusCode !== undefined ? { statusCode } : {}) });
}
