import { TdsError } from '../../core/index.js';
import {
  type RateLimiter,
  errorFromNetwork,
  PROXY_CODES,
  waitTooLong,
  withRetries,
  MAX_RETRY_AFTER_MS,
  type RetryPolicy,
} from '../../http/index.js';
import { attemptOutcome, describeResult } from './classify.js';
import type { WebhookClient, WireResult } from './webhook-client.js';
import type { WebhookTarget } from './webhook-target.js';

export interface WebhookCheckOptions {
  client: Pick<WebhookClient, 'head'>;
  target: WebhookTarget;
  limiter: Pick<RateLimiter, 'acquireSlot' | 'pause'>;
  /** --max-retries and the waits between tries (HEAD adds no row: it is safe to repeat) */
  retry: Omit<RetryPolicy, 'idempotent'>;
  signal: AbortSignal;
  log?: (line: string) => void;
}

/**
 * HEAD on the webhook (it adds no row): resolves to its time (ms, the connection's set-up included)
 * when it exists, NOT_FOUND (exit 4) on a 404. 429, 5xx and network failures are retried (HEAD is
 * safe to repeat), then GAVE_UP (exit 6).
 */
export async function checkWebhook(options: WebhookCheckOptions): Promise<number> {
  const { target } = options;
  const { result, decision, attempts } = await withRetries<WireResult>({
    limiter: options.limiter,
    policy: { ...options.retry, idempotent: true },
    signal: options.signal,
    attempt: () => options.client.head(),
    outcomeOf: (head) => (isAnswer(head) ? undefined : attemptOutcome(head)),
    onAttempt: ({ result: head }) => {
      const answer = head.kind === 'response' ? String(head.status) : describeResult(head);
      options.log?.(`HEAD ${target.displayUrl} ${answer} ${Math.round(head.ms)}ms`);
    },
  });
  const detail = target.redact(describeResult(result));
  const what = `checking the webhook ${target.displayUrl}`;
  // a proxy that refused the tunnel is said as the service client says it (a 407: exit 3, how to give credentials)
  if (result.kind === 'failure' && result.proxy && PROXY_CODES.includes(result.code ?? '')) {
    const { shown, error } = result.proxy;
    throw errorFromNetwork({ what, error, attempts, retryable: decision?.why === 'exhausted', target: target.url.host, proxy: shown });
  }
  if (decision?.why === 'wait-too-long') throw waitTooLong(what, decision.askedMs ?? 0, MAX_RETRY_AFTER_MS);
  if (decision?.why === 'exhausted') {
    throw new TdsError('GAVE_UP', `${what}: ${detail} after ${attempts.length} attempts; nothing was sent`);
  }
  if (decision) {
    throw new TdsError('API', `${what}: ${detail}; nothing was sent`, {
      ...(result.kind === 'response' ? { status: result.status } : {}),
    });
  }
  if (result.kind === 'response' && result.status === 404) {
    throw new TdsError('NOT_FOUND', `the webhook ${target.displayUrl} does not exist (HTTP 404); nothing was sent`, {
      status: 404,
      hint: "copy the URL again from the table's webhook settings",
    });
  }
  return result.ms;
}

/** A 2xx (it exists) or a 404 (it does not): the question is answered. */
function isAnswer(result: WireResult): boolean {
  return result.kind === 'response' && ((result.status >= 200 && result.status < 300) || result.status === 404);
}
