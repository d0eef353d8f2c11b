import { createHash } from 'node:crypto';
import { UsageError, redactSecrets, redactWebhookUrl } from '../../core/index.js';
// http/index.ts would load the client: push's index reads this at start-up
import { isLoopbackHost } from '../../http/connection-settings.js';

/** A checked webhook URL and everything needed to keep it out of output. */
export interface WebhookTarget {
  url: URL;
  /** `https://host/…abcd`: the only form ever displayed */
  displayUrl: string;
  /** sha256 of the URL, so a journal can tell webhooks apart without holding the secret */
  fingerprint: string;
  /** Replaces the URL and its id in any text (service messages, error texts). */
  redact(text: string): string;
}

const HINT = 'give the webhook URL as https://…, as @NAME (saved with `tds config set webhook.NAME`), or set TDS_WEBHOOK_URL';

/** Checks a webhook URL: http(s), no credentials, and plain http:// only for a loopback host. The URL is never echoed. */
export function webhookTarget(raw: string): WebhookTarget {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new UsageError('the webhook URL is not a valid URL', { hint: HINT });
  }
  const displayUrl = redactWebhookUrl(url.href);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new UsageError(`the webhook URL must use https:// (got ${url.protocol}//)`, { hint: HINT });
  }
  if (url.username || url.password) throw new UsageError('the webhook URL must not contain a user name or password', { hint: HINT });
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw new UsageError(`refusing plain http:// to ${url.host}: the webhook URL is a secret and would travel unencrypted`, {
      hint: 'use https://, or http:// only for a loopback host such as 127.0.0.1 or localhost',
    });
  }
  const id = url.pathname.split('/').filter(Boolean).pop();
  const secrets = [raw.trim(), url.href, url.pathname, id && id.length >= 8 ? id : undefined];
  return {
    url,
    displayUrl,
    fingerprint: createHash('sha256').update(url.href).digest('hex'),
    redact: (text) => redactSecrets(text, secrets),
  };
}

export interface PushArguments {
  /** the webhook as given: a URL or @NAME; undefined when TDS_WEBHOOK_URL is to be used */
  webhook?: string;
  /** a file path or `-` */
  input: string;
}

/**
 * `tds push [WEBHOOK] [FILE|-]`: with one argument, a URL or @NAME is the webhook and anything else
 * the input (the webhook then comes from TDS_WEBHOOK_URL).
 */
export function pushArguments(args: string[]): PushArguments {
  const [first, second] = args;
  if (second !== undefined) return { webhook: first, input: second };
  if (first !== undefined && looksLikeWebhook(first)) return { webhook: first, input: '-' };
  return { input: first ?? '-' };
}

function looksLikeWebhook(arg: string): boolean {
  return arg.startsWith('@') || /^[a-z][a-z0-9+.-]*:\/\//i.test(arg);
}
