import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';
import { certificateProblem, isCertificateCode, errorCodeOf } from '../../http/errors.js';
import { originPool, proxyFor, shownProxy, type ProxySettings } from '../../http/proxy.js';
import { RateLimiter } from '../../http/rate-limiter.js';
import { readBodyText } from '../../http/transport.js';
import type { WebhookTarget } from './webhook-target.js';

/** What one request ended with: a response (any status), or a transport failure. */
export type WireResult =
  | { kind: 'response'; status: number; headers: IncomingHttpHeaders; text: string; ms: number }
  | { kind: 'failure'; code: string | undefined; message: string; ms: number; certificate?: string };

export interface WebhookClientOptions {
  target: Pick<WebhookTarget, 'url' | 'displayUrl'>;
  connections: number;
  timeoutMs: number;
  /** HTTPS_PROXY, HTTP_PROXY, NO_PROXY (proxy.ts says which proxy, if any, the webhook is reached through) */
  proxy?: ProxySettings | undefined;
  /** --verbose: says when a proxy is used */
  log?: (line: string) => void;
  /**
   * Hears every POST's result (the in-flight rule measures the round trip on them; not on the HEAD
   * check, whose time holds the connection's set-up).
   */
  onPosted?: (result: WireResult) => void;
}

const MAX_RESPONSE_BYTES = 64 * 1024;
/** A whole answer must arrive within this many --timeout periods. */
const DEADLINE_TIMEOUTS = 4;

/**
 * POST and HEAD to one webhook URL over a dedicated keep-alive pool (proxy.ts: direct or through a
 * proxy). No API key, no redirects followed, and no abort signal: a request once started is let
 * finish, so its outcome can be journaled.
 */
export class WebhookClient {
  private readonly pool: Promise<Dispatcher>;
  private readonly origin: string;
  private readonly path: string;
  private readonly deadlineMs: number;
  private readonly onPosted?: (result: WireResult) => void;

  constructor(options: WebhookClientOptions) {
    const { url, displayUrl } = options.target;
    this.origin = url.origin;
    this.path = url.pathname + url.search;
    this.deadlineMs = options.timeoutMs * DEADLINE_TIMEOUTS;
    if (options.onPosted) this.onPosted = options.onPosted;
    const poolOptions = { connections: options.connections, pipelining: 1, timeoutMs: options.timeoutMs };
    const proxy = options.proxy && proxyFor(url, options.proxy);
    if (proxy) options.log?.(`sending to ${displayUrl} through the proxy ${shownProxy(proxy)} (HTTPS_PROXY, HTTP_PROXY, NO_PROXY)`);
    this.pool = originPool(this.origin, poolOptions, proxy);
    this.pool.catch(() => undefined);
  }

  head(): Promise<WireResult> {
    return this.send('HEAD');
  }

  async post(body: Buffer): Promise<WireResult> {
    const result = await this.send('POST', body);
    this.onPosted?.(result);
    return result;
  }

  async close(): Promise<void> {
    await (await this.pool).close();
  }

  private async send(method: 'HEAD' | 'POST', body?: Buffer): Promise<WireResult> {
    const started = performance.now();
    const headers: Record<string, string> = { 'user-agent': 'tds', accept: 'application/json' };
    if (body) headers['content-type'] = 'application/json';
    try {
      const pool = await this.pool;
      const response = await pool.request({ origin: this.origin, method, path: this.path, headers, body });
      // the status line decided the outcome; what the body says is only informative, so a body cut short still counts
      const text = await readBodyText(response.body, { maxBytes: MAX_RESPONSE_BYTES, deadlineMs: this.deadlineMs, keepStart: true }).catch(
        () => '',
      );
      return { kind: 'response', status: response.statusCode, headers: response.headers, text, ms: performance.now() - started };
    } catch (error) {
      const code = errorCodeOf(error);
      return {
        kind: 'failure',
        code,
        message: (error as Error).message ?? String(error),
        ms: performance.now() - started,
        // the webhook's host is no secret (its path is)
        ...(isCertificateCode(code) ? { certificate: certificateProblem(code!, new URL(this.origin).host, error) } : {}),
      };
    }
  }
}

/** Share of the window kept free for the jitter between our clock and the service's. */
const MARGIN = 0.01;

/** The least a slot counts past its send, besides its own delay, in real ms: a stall of either process on a loaded machine. */
const EXCESS_FLOOR_MS = 25;

/**
 * Paces webhook requests (HEAD included) to `rate` in any window of `windowMs` (the webhook's second, scaled).
 * The service counts a request when it arrives: each slot counts from when its request may have
 * arrived (RateLimiter's excessFloorMs: its send, plus how much slower it was than the quickest recent
 * request, plus 25 ms), so requests delayed on the way (a stall in either process, a jittery network)
 * cannot draw a 429, while a far service does not cost a whole round trip in every window. Every 429
 * stops every sender for a whole retry-after (1 s or more).
 */
export function webhookLimiter(rate: number, windowMs: number): RateLimiter {
  return new RateLimiter({ limit: rate, windowMs, marginMs: windowMs * MARGIN, excessFloorMs: EXCESS_FLOOR_MS });
}
