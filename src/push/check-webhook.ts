import { setTimeout as sleep } from 'node:timers/promises';
import { TdsError } from '../cli/errors.js';
import type { RateLimiter } from '../http/rate-limiter.js';
import { backoffMs } from '../http/retry-policy.js';
import { DEFAULT_RETRY_AFTER_SECONDS } from '../spec/index.js';
import { classifyHead } from './classify.js';
import type { WebhookClient } from './webhook-client.js';
import type { WebhookTarget } from './webhook-target.js';

export interface CheckOptions {
  client: Pick<WebhookClient, 'head'>;
  target: WebhookTarget;
  limiter: Pick<RateLimiter, 'acquire' | 'pause'>;
  maxRetries: number;
  rateScale: number;
  signal: AbortSignal;
  log?: (line: string) => void;
  random?: () => number;
}

/**
 * HEAD on the webhook (it adds no row): resolves when it exists, NOT_FOUND (exit 4) on a 404.
 * 429, 5xx and network failures are retried (HEAD is safe to repeat), then GAVE_UP (exit 6).
 */
export async function checkWebhook(options: CheckOptions): Promise<void> {
  const { target } = options;
  for (let attempt = 0; ; attempt += 1) {
    await options.limiter.acquire(options.signal);
    const result = await options.client.head();
    const outcome = classifyHead(result);
    const answer = result.kind === 'response' ? String(result.status) : 'detail' in outcome ? outcome.detail : '';
    options.log?.(`HEAD ${target.shown} ${answer} ${Math.round(result.ms)}ms`);
    switch (outcome.kind) {
      case 'exists':
        return;
      case 'missing':
        throw new TdsError('NOT_FOUND', `the webhook ${target.shown} does not exist (HTTP 404); nothing was sent`, {
          status: 404,
          hint: "copy the URL again from the table's webhook settings",
        });
      case 'failed':
        throw new TdsError('API', `checking the webhook ${target.shown}: ${target.redact(outcome.detail)}; nothing was sent`, {
          status: outcome.status,
        });
      case 'retry': {
        if (attempt >= options.maxRetries) {
          throw new TdsError(
            'GAVE_UP',
            `checking the webhook ${target.shown}: ${target.redact(outcome.detail)} after ${attempt + 1} attempts; nothing was sent`,
          );
        }
        if (outcome.why === 'rate-limited') {
          options.limiter.pause((outcome.retryAfterMs ?? DEFAULT_RETRY_AFTER_SECONDS * 1000) / options.rateScale);
        } else {
          const wait = backoffMs(attempt, (options.random ?? Math.random)()) / options.rateScale;
          await sleep(wait, undefined, { signal: options.signal }).catch(() => {
            throw options.signal.reason;
          });
        }
      }
    }
  }
}
