import type { IncomingHttpHeaders } from 'node:http';
import {
  certificateProblem,
  isCertificateCode,
  proxyFor,
  shownProxy,
  type ProxySettings,
  RateLimiter,
  attemptRequest,
  Transport,
} from '../../http/index.js';
import type { WebhookTarget } from './webhook-target.js';

/** What one request ended with: a response (any status), or a transport failure. */
export type WireResult =
  | { kind: 'response'; status: number; headers: IncomingHttpHeaders; text: string; ms: number }
  | {
      kind: 'failure';
      code: string | undefined;
      message: string;
      ms: number;
      certificate?: string;
      /** The proxy the request went through (as shownProxy shows it), and its transport error: http/errors.ts words a proxy's refusal. */
      proxy?: { shown: string; error: unknown };
    };

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

/** The status line decides the outcome; what the body says is only informative, so a body cut short still counts. */
const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * POST and HEAD to one webhook URL through the one transport (http/transport.ts, over a proxy when
 * proxy.ts says so). No API key, no redirects followed, and no abort signal: a request once started is
 * let finish, so its outcome can be journaled.
 */
export class WebhookClient {
  private readonly transport: Transport;
  private readonly origin: string;
  private readonly path: string;
  private readonly onPosted?: (result: WireResult) => void;
  private readonly proxyShown?: string;

  constructor(options: WebhookClientOptions) {
    const { url, displayUrl } = options.target;
    this.origin = url.origin;
    this.path = url.pathname + url.search;
    if (options.onPosted) this.onPosted = options.onPosted;
    const proxy = options.proxy && proxyFor(url, options.proxy);
    if (proxy) this.proxyShown = shownProxy(proxy);
    if (proxy) options.log?.(`sending to ${displayUrl} through the proxy ${shownProxy(proxy)} (HTTPS_PROXY, HTTP_PROXY, NO_PROXY)`);
    this.transport = new Transport({
      origin: this.origin,
      timeoutMs: options.timeoutMs,
      connections: options.connections,
      pipelining: 1,
      informativeBody: { maxBytes: MAX_RESPONSE_BYTES },
      ...(proxy ? { proxy } : {}),
    });
  }

  head(): Promise<WireResult> {
    return this.send('HEAD');
  }

  async post(body: Buffer): Promise<WireResult> {
    const result = await this.send('POST', body);
    this.onPosted?.(result);
    return result;
  }

  close(): Promise<void> {
    return this.transport.close();
  }

  private async send(method: 'HEAD' | 'POST', body?: Buffer): Promise<WireResult> {
    const headers: Record<string, string> = { 'user-agent': 'tds', accept: 'application/json' };
    if (body) headers['content-type'] = 'application/json';
    const { response, failure, outcome, ms } = await attemptRequest(this.transport, {
      method,
      path: this.path,
      headers,
      ...(body ? { body } : {}),
    });
    if (response) return { kind: 'response', status: response.status, headers: response.headers, text: response.text, ms };
    const code = outcome.kind === 'network' ? outcome.code : undefined;
    return {
      kind: 'failure',
      code,
      message: (failure as Error).message ?? String(failure),
      ms,
      // the webhook's host is no secret (its path is)
      ...(isCertificateCode(code) ? { certificate: certificateProblem(code!, new URL(this.origin).host, failure) } : {}),
      ...(this.proxyShown ? { proxy: { shown: this.proxyShown, error: failure } } : {}),
    };
  }
}

/** Share of the window kept free for the jitter between our clock and the service's. */
const MARGIN = 0.01;

/** The least a slot counts past its send, besides its own delay, in real ms: a stall of either process on a loaded machine. */
const EXCESS_FLOOR_MS = 25;

/**
 * Spaces webhook requests (HEAD included) to `rate` in any window of `windowMs` (the webhook's second, scaled).
 * The service counts a request when it arrives: each slot counts from when its request may have
 * arrived (RateLimiter's excessFloorMs: its send, plus how much slower it was than the quickest recent
 * request, plus 25 ms), so requests delayed on the way (a stall in either process, a jittery network)
 * cannot draw a 429, while a far service does not cost a whole round trip in every window. Every 429
 * stops every sender for a whole retry-after (1 s or more).
 */
export function webhookLimiter(rate: number, windowMs: number): RateLimiter {
  return new RateLimiter({ limit: rate, windowMs, marginMs: windowMs * MARGIN, excessFloorMs: EXCESS_FLOOR_MS });
}
