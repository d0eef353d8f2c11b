import { redactSecrets } from '../core/index.js';
import { errorCodeOf, type Attempt } from './errors.js';
import { proxyFor, shownProxy, type ProxySettings } from './proxy.js';
import { RateLimiter } from './rate-limiter.js';
import { parseRetryAfter, type AttemptOutcome } from './retry-policy.js';
import { withRetries, type AttemptReport, type RetryLoop, type RetryResult } from './retry.js';
import { Transport, type SendRequest } from './transport.js';

// The one HTTP stack, composed once: a transport to one origin (transport.ts, direct or through the proxy
// proxy.ts picks), behind a limiter and the one retry loop (retry.ts), which asks the pure policy
// (retry-policy.ts) after each attempt. The service's client, the webhook's and the notifications send
// through it; `postOnce` is the whole stack for one POST to a URL.

/** One try of `request`: a response of any status, or the transport failure; only an abort is thrown (its reason). */
export async function attemptRequest(transport: Transport, request: SendRequest, signal?: AbortSignal): Promise<Attempt> {
  const started = performance.now();
  try {
    const response = await transport.send(request);
    const retryAfterMs = response.status === 429 ? parseRetryAfter(response.headers['retry-after']) : undefined;
    const outcome: AttemptOutcome = { kind: 'status', status: response.status, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
    return { outcome, response, ms: performance.now() - started };
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    return { outcome: { kind: 'network', code: errorCodeOf(error) }, failure: error, ms: performance.now() - started };
  }
}

export function isSuccess(attempt: Pick<Attempt, 'response'>): boolean {
  const status = attempt.response?.status;
  return status !== undefined && status >= 200 && status < 300;
}

export interface StackRequest extends Pick<RetryLoop<Attempt>, 'limiter' | 'policy' | 'signal' | 'onAttempt'> {
  transport: Transport;
  request: SendRequest;
}

/** `request` through the limiter and the retry loop until a 2xx, a final answer, or the retries run out. */
export function sendWithRetries(options: StackRequest): Promise<RetryResult<Attempt>> {
  const { transport, request, signal } = options;
  return withRetries<Attempt>({
    limiter: options.limiter,
    policy: options.policy,
    ...(signal ? { signal } : {}),
    attempt: () => attemptRequest(transport, request, signal),
    outcomeOf: (attempt) => (isSuccess(attempt) ? undefined : attempt.outcome),
    ...(options.onAttempt ? { onAttempt: options.onAttempt } : {}),
  });
}

export interface PostOnce {
  /** The receiver's URL: a secret, never in a log line (its host only). */
  url: URL;
  body: string;
  headers?: Record<string, string>;
  /** Bounds the connection, the wait for the answer's headers and any silence inside it; the whole answer gets 4 of them. */
  timeoutMs: number;
  /** 429s and failures before the body left (a refused connection, a tunnel the proxy closed) are tried again this often. */
  maxRetries: number;
  /** Retry waits divided by it (TDS_RATE_SCALE). */
  rateScale: number;
  /** HTTPS_PROXY, HTTP_PROXY and NO_PROXY, as for every other request. */
  proxy?: ProxySettings;
  signal?: AbortSignal;
  /** One --verbose line per attempt: `POST https://host/… 200 12ms` (no path, no secret). */
  log?: (line: string) => void;
}

/** Answers of the receiver (Slack's "ok", a JSON echo) are only informative. */
const POST_ANSWER_BYTES = 64 * 1024;

/**
 * One POST through the whole stack, never repeated once its body may have reached the receiver: a 5xx,
 * a timeout or a connection broken after sending is final (the receiver may have acted on it), so are
 * the 4xx; a 429 and a failure before sending are retried with backoff. Resolves to the last attempt
 * and why the retries stopped; never throws but for an abort.
 */
export async function postOnce(options: PostOnce): Promise<RetryResult<Attempt>> {
  const { url, signal } = options;
  const shown = `${url.protocol}//${url.host}/…`;
  const proxy = options.proxy && proxyFor(url, options.proxy);
  if (proxy) options.log?.(`posting to ${shown} through the proxy ${shownProxy(proxy)} (HTTPS_PROXY, HTTP_PROXY, NO_PROXY)`);
  const transport = new Transport({
    origin: url.origin,
    timeoutMs: options.timeoutMs,
    connections: 1,
    informativeBody: { maxBytes: POST_ANSWER_BYTES },
    ...(signal ? { signal } : {}),
    ...(proxy ? { proxy } : {}),
  });
  const secrets = [url.href, url.pathname + url.search];
  try {
    return await sendWithRetries({
      transport,
      // one request now and then: the limiter only spaces the retries after a 429
      limiter: new RateLimiter({ limit: 10, windowMs: 1000 }),
      policy: { maxRetries: options.maxRetries, idempotent: false, rateScale: options.rateScale },
      ...(signal ? { signal } : {}),
      request: {
        method: 'POST',
        path: url.pathname + url.search,
        headers: { 'content-type': 'application/json', 'user-agent': 'tds', ...options.headers },
        body: options.body,
      },
      onAttempt: ({ result }: AttemptReport<Attempt>) => {
        const answer = result.outcome.kind === 'status' ? String(result.outcome.status) : (result.outcome.code ?? 'network error');
        options.log?.(redactSecrets(`POST ${shown} ${answer} ${Math.round(result.ms)}ms`, secrets));
      },
    });
  } finally {
    await transport.close().catch(() => undefined);
  }
}
