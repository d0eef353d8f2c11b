import { Pool } from 'undici';
import type { IncomingHttpHeaders } from 'node:http';
import { errorCodeOf } from '../../http/errors.js';
import { RateLimiter } from '../../http/rate-limiter.js';
import { readBodyText } from '../../http/read-body.js';

/** What one request ended with: a response (any status), or a transport failure. */
export type WireResult =
  | { kind: 'response'; status: number; headers: IncomingHttpHeaders; text: string; ms: number }
  | { kind: 'failure'; code: string | undefined; message: string; ms: number };

export interface WebhookClientOptions {
  url: URL;
  connections: number;
  timeoutMs: number;
}

const MAX_RESPONSE_BYTES = 64 * 1024;
/** A whole answer must arrive within this many --timeout periods. */
const DEADLINE_TIMEOUTS = 4;

/**
 * POST and HEAD to one webhook URL over a dedicated keep-alive pool. No API key, no redirects
 * followed (a Pool stays on its origin), and no abort signal: a request once started is let finish,
 * so its outcome can be journaled.
 */
export class WebhookClient {
  private readonly pool: Pool;
  private readonly path: string;
  private readonly deadlineMs: number;

  constructor(options: WebhookClientOptions) {
    this.path = options.url.pathname + options.url.search;
    this.deadlineMs = options.timeoutMs * DEADLINE_TIMEOUTS;
    this.pool = new Pool(options.url.origin, {
      connections: options.connections,
      pipelining: 1,
      connect: { timeout: options.timeoutMs },
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    });
  }

  head(): Promise<WireResult> {
    return this.send('HEAD');
  }

  post(body: Buffer): Promise<WireResult> {
    return this.send('POST', body);
  }

  close(): Promise<void> {
    return this.pool.close();
  }

  private async send(method: 'HEAD' | 'POST', body?: Buffer): Promise<WireResult> {
    const started = performance.now();
    const headers: Record<string, string> = { 'user-agent': 'tds', accept: 'application/json' };
    if (body) headers['content-type'] = 'application/json';
    try {
      const response = await this.pool.request({ method, path: this.path, headers, body });
      // the status line decided the outcome; what the body says is only informative, so a body cut short still counts
      const text = await readBodyText(response.body, { maxBytes: MAX_RESPONSE_BYTES, deadlineMs: this.deadlineMs, keepStart: true }).catch(
        () => '',
      );
      return { kind: 'response', status: response.statusCode, headers: response.headers, text, ms: performance.now() - started };
    } catch (error) {
      return {
        kind: 'failure',
        code: errorCodeOf(error),
        message: (error as Error).message ?? String(error),
        ms: performance.now() - started,
      };
    }
  }
}

/** Share of the window kept free for the jitter between our clock and the service's. */
const MARGIN = 0.01;

/**
 * Paces webhook requests (HEAD included) to `rate` in any window of `windowMs` (the webhook's second, scaled).
 * Each slot is re-dated to the end of its request (RateLimitSlot.done), after the service counted
 * it, so requests that bunch on the way (a stall in either process) cannot draw a 429; every 429
 * stops every sender for a whole retry-after (1 s or more).
 */
export function webhookLimiter(rate: number, windowMs: number): RateLimiter {
  return new RateLimiter({ limit: rate, windowMs, marginMs: windowMs * MARGIN });
}
