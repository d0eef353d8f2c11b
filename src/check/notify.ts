import type { Context } from '../core/context.js';
import { UsageError } from '../core/errors.js';
import { type Settings, loadNotifyUrl } from '../config/settings.js';
import { DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_MS } from '../http/client.js';
import type { ProxySettings } from '../http/proxy.js';
import { serviceTimings } from '../http/rate-limiter.js';
import { isSuccess, postOnce } from '../http/stack.js';
import { observedText, tallyText, type CheckResult } from './check-result.js';
import type { StatusChange } from './check-history.js';

// `--notify URL|@NAME`: one JSON message per run in which some check changed status, posted through
// the HTTP core (its transport, timeouts, retry policy and pacing). `text` makes it a Slack or Teams
// incoming-webhook message; `changes` is for programs. The URL is a secret: it never appears in a
// message, a log line or an error (only its host does).

export interface Notification {
  text: string;
  changes: Array<StatusChange & { observedText: string }>;
}

export interface NotifyOptions {
  /** The receiver's URL (a secret). */
  url: string;
  timeoutMs: number;
  maxRetries: number;
  /** Retry waits divided by it (TDS_RATE_SCALE). */
  rateScale: number;
  /** HTTPS_PROXY, HTTP_PROXY and NO_PROXY. */
  proxy?: ProxySettings;
  signal?: AbortSignal;
  /** --verbose lines (the URL redacted). */
  log?: (line: string) => void;
}

/** --notify URL or @NAME (config notify.NAME), checked before anything runs; the URL is never shown. */
export async function notifyTarget(ctx: Context, given: string, settings: Settings): Promise<Omit<NotifyOptions, 'log' | 'signal'>> {
  const url = given.startsWith('@') ? await loadNotifyUrl(ctx, given, settings.profile) : given;
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')) {
    throw new UsageError('--notify takes an http(s) URL or @NAME (a URL saved with `tds config set notify.NAME`)');
  }
  return {
    url,
    timeoutMs: settings.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxRetries: settings.maxRetries ?? DEFAULT_MAX_RETRIES,
    rateScale: serviceTimings(settings.rateScale).retryScale,
    ...(settings.proxy ? { proxy: settings.proxy } : {}),
  };
}

/** Delivered, or why not (with no secret in it). */
export type NotifyOutcome = { delivered: true; attempts: number } | { delivered: false; attempts: number; why: string };

export function notification(changes: readonly StatusChange[], results: readonly CheckResult[]): Notification {
  const byKey = new Map(results.map((result) => [JSON.stringify([result.table, result.check]), result]));
  const lines = changes.map((change) => {
    const result = byKey.get(JSON.stringify([change.table, change.check]));
    const figure = result ? `${observedText(result)}, threshold ${change.threshold}` : change.threshold;
    const arrow = `${change.from ?? 'new'} → ${change.to.toUpperCase()}`;
    return `• ${change.table} — ${change.check}: ${arrow} (${figure})`;
  });
  const worse = changes.some((change) => change.to === 'fail' || change.to === 'error');
  const head = `${worse ? '🔴' : '🟢'} tds check: ${changes.length} ${changes.length === 1 ? 'check' : 'checks'} changed status (now ${tallyText(results)})`;
  return {
    text: [head, ...lines].join('\n'),
    changes: changes.map((change) => {
      const result = byKey.get(JSON.stringify([change.table, change.check]));
      return { ...change, observedText: result ? observedText(result) : '' };
    }),
  };
}

/** Posts the message through the one HTTP stack (http/stack.ts). Never throws but for an abort. */
export async function postNotification(message: Notification, options: NotifyOptions): Promise<NotifyOutcome> {
  let url: URL;
  try {
    url = new URL(options.url);
  } catch {
    return { delivered: false, attempts: 0, why: 'the notification URL is not a URL' };
  }
  const { result, attempts } = await postOnce({
    url,
    body: JSON.stringify(message),
    timeoutMs: options.timeoutMs,
    maxRetries: options.maxRetries,
    rateScale: options.rateScale,
    ...(options.proxy ? { proxy: options.proxy } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.log ? { log: options.log } : {}),
  });
  if (isSuccess(result)) return { delivered: true, attempts: attempts.length + 1 };
  const answer =
    result.outcome.kind === 'status' ? `HTTP ${result.outcome.status}` : `${result.outcome.code ?? 'network error'} (no answer)`;
  return { delivered: false, attempts: attempts.length, why: `the receiver at ${url.host} answered ${answer}` };
}

/**
 * The run's notification, when some status changed (nothing is posted otherwise); one line on stderr
 * says it was sent or why it could not be. Never fails the run.
 */
export async function notifyChanges(
  ctx: Context,
  outcome: { changes: readonly StatusChange[]; results: readonly CheckResult[] },
  options: Omit<NotifyOptions, 'log' | 'signal'>,
): Promise<NotifyOutcome | undefined> {
  if (outcome.changes.length === 0) {
    ctx.verbose('notify: no status changed since the last run; nothing sent');
    return undefined;
  }
  const sent = await postNotification(notification(outcome.changes, outcome.results), {
    ...options,
    signal: ctx.signal,
    log: (line) => ctx.verbose(line),
  });
  const what = `${outcome.changes.length} ${outcome.changes.length === 1 ? 'change' : 'changes'}`;
  if (sent.delivered) ctx.io.stderr.write(`tds: notified ${what}\n`);
  else
    ctx.io.stderr.write(`tds: warning: the notification of ${what} could not be delivered: ${sent.why} after ${sent.attempts} attempts\n`);
  return sent;
}
