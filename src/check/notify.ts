import { type Context, UsageError } from '../core/index.js';
import { type Settings, loadNotifyUrl } from '../config/index.js';
import {
  DEFAULT_MAX_RETRIES,
  type ProxySettings,
  serviceTimings,
  wasNotSent,
  type AttemptOutcome,
  isSuccess,
  postOnce,
  RESPONSE_DEADLINE,
} from '../http/index.js';
import type { OpenMirror } from '../mirror/index.js';
import { ageText, observedText, tallyText, type CheckResult, type CheckStatus } from './check-result.js';
import { markNotified, resultKey, type StatusChange } from './check-history.js';

// `--notify URL|@NAME`: one JSON message per run in which some check changed status since a receiver
// last took one, posted through the HTTP core's transport and retry loop. `text` makes it a Slack or
// Teams incoming-webhook message; `changes` is for programs. The URL is a secret: it never appears in a
// message, a log line or an error (only its host does).
//
// Delivery (postNotification, the one place of its policy): a receiver is not idempotent, so a POST
// whose body may have reached it is not sent again in the run; only a 429 and a failure before the
// body left are tried again. Each try is bounded (NOTIFY_TRY_MS). What no receiver took (answered 2xx)
// stays undelivered in the mirror (_tds_notified, check-history.ts) and goes with the next run's
// message, or with --follow the next round's; so a message arrives twice only when a receiver took it
// and its 2xx was never recorded (no answer in time, a broken connection, tds killed meanwhile).

export interface Notification {
  text: string;
  changes: Array<StatusChange & { observedText: string }>;
}

/** The longest one try of a notification takes: the connection, the POST and the answer. */
export const NOTIFY_TRY_MS = 10_000;

export interface NotifyOptions {
  /** The receiver's URL (a secret). */
  url: string;
  /** One try's bound: NOTIFY_TRY_MS, or --timeout when shorter. */
  tryMs: number;
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
    tryMs: Math.min(settings.timeoutMs ?? NOTIFY_TRY_MS, NOTIFY_TRY_MS),
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

/**
 * Posts the message through the one HTTP stack (http/stack.ts postOnce): delivered when the receiver
 * answered 2xx. A 429 and a failure before the body left (refused, no connection, no address) are
 * tried again; a POST whose body was sent is not (a 5xx, a redirect, no answer within the try's bound):
 * the message stays undelivered for the next run. Never throws but for an abort.
 */
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
    timeoutMs: options.tryMs,
    maxRetries: options.maxRetries,
    rateScale: options.rateScale,
    ...(options.proxy ? { proxy: options.proxy } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.log ? { log: options.log } : {}),
  });
  if (isSuccess(result)) return { delivered: true, attempts: attempts.length + 1 };
  return { delivered: false, attempts: attempts.length, why: whyUndelivered(result.outcome, url.host, options.tryMs) };
}

/** Codes of a try that waited its bound (connection, answer, or silence inside it) in vain. */
const TIMED_OUT = ['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT', RESPONSE_DEADLINE];

function whyUndelivered(outcome: AttemptOutcome, host: string, tryMs: number): string {
  if (outcome.kind === 'status') {
    const redirect = outcome.status >= 300 && outcome.status < 400;
    return `the receiver at ${host} answered HTTP ${outcome.status}${redirect ? ' (a redirect, which is not followed: give the URL it points to)' : ''}`;
  }
  const code = outcome.code ?? 'network error';
  if (wasNotSent(outcome.code)) return `the receiver at ${host} could not be reached (${code})`;
  const bound = tryMs >= 1000 ? ageText(tryMs / 1000) : `${tryMs}ms`;
  const waited = TIMED_OUT.includes(code) ? ` within ${bound}` : '';
  return `no answer from the receiver at ${host}${waited} (${code}); it may have taken the message`;
}

/** Where a delivery is recorded: the mirror, and how a wait for it is said. */
export interface NotifiedIn {
  db: string;
  wait: Pick<OpenMirror, 'onWait' | 'signal'>;
}

/**
 * The run's notification (tds check), when some status changed since a receiver last took one
 * (nothing is posted otherwise); one line on stderr says it was sent or why not. A delivery is
 * recorded in the mirror; an undelivered one stays for the next run. Never fails the run.
 */
export async function notifyChanges(
  ctx: Context,
  outcome: { changes: readonly StatusChange[]; results: readonly CheckResult[] },
  options: Omit<NotifyOptions, 'log' | 'signal'>,
  notified: NotifiedIn,
): Promise<NotifyOutcome | undefined> {
  if (outcome.changes.length === 0) {
    ctx.verbose('notify: no status changed since the last notification; nothing sent');
    return undefined;
  }
  const sent = await postNotification(notification(outcome.changes, outcome.results), {
    ...options,
    signal: ctx.signal,
    log: (line) => ctx.verbose(line),
  });
  sayDelivery(ctx, outcome.changes.length, sent, 'run');
  if (sent.delivered) await recordDelivered(ctx, outcome.changes, notified);
  return sent;
}

/** `next`: what sends an undelivered message again (the next run of tds check, or --follow's next round that checks). */
function sayDelivery(ctx: Context, count: number, sent: NotifyOutcome, next: 'run' | 'round'): void {
  const what = `${count} ${count === 1 ? 'change' : 'changes'}`;
  if (sent.delivered) ctx.io.stderr.write(`tds: notified ${what}\n`);
  else {
    const tries = `${sent.attempts} ${sent.attempts === 1 ? 'attempt' : 'attempts'}`;
    ctx.io.stderr.write(
      `tds: warning: the notification of ${what} could not be delivered: ${sent.why} after ${tries}; the next ${next} sends it again\n`,
    );
  }
}

/** A delivery recorded in _tds_notified; one that cannot be is said (the next run may then send it again). */
async function recordDelivered(ctx: Context, changes: readonly StatusChange[], notified: NotifiedIn): Promise<void> {
  await markNotified(notified.db, changes, notified.wait).catch((error: unknown) => {
    const why = error instanceof Error ? error.message : String(error);
    ctx.io.stderr.write(
      `tds: warning: the notification was delivered but could not be recorded in the mirror (${why}): the next run may send it again\n`,
    );
  });
}

/**
 * --follow --check's notifications: a round never waits for a receiver. Each round's results are
 * handed over (`afterChecks`); what differs from the status a receiver has is posted in the background,
 * one message at a time, and what was delivered is recorded in the mirror by the next round
 * (`beforeChecks`: the follower has let the file go then) or at the end (`close`).
 */
export class FollowNotifier {
  private readonly latest = new Map<string, CheckResult>();
  /** Per check, the status a receiver has: the mirror's (a round's changes) until a delivery of this run says. */
  private readonly known = new Map<string, CheckStatus | null>();
  private readonly deliveredHere = new Set<string>();
  /** Delivered, not yet recorded in the mirror. */
  private taken: StatusChange[] = [];
  private delivering: Promise<void> | undefined;

  constructor(
    private readonly ctx: Context,
    private readonly options: Omit<NotifyOptions, 'log' | 'signal'>,
    private readonly db: string,
  ) {}

  /** Records what receivers took since the last round (the mirror is free between rounds). */
  async beforeChecks(): Promise<void> {
    const taken = this.taken;
    this.taken = [];
    await recordDelivered(this.ctx, taken, { db: this.db, wait: { onWait: (line) => this.ctx.io.stderr.write(`tds: ${line}\n`) } });
  }

  /** A round's results and changes (since the statuses _tds_notified holds): what is undelivered goes in the background. */
  afterChecks(outcome: { changes: readonly StatusChange[]; results: readonly CheckResult[] }): void {
    const from = new Map(outcome.changes.map((change) => [resultKey(change.table, change.check), change.from]));
    for (const result of outcome.results) {
      const key = resultKey(result.table, result.check);
      this.latest.set(key, result);
      if (!this.deliveredHere.has(key)) this.known.set(key, from.has(key) ? from.get(key)! : result.status);
    }
    this.delivering ??= this.deliver().finally(() => (this.delivering = undefined));
  }

  /** At the end of the follow: the delivery under way ends (Ctrl-C stops it), and what was delivered is recorded. */
  async close(): Promise<void> {
    await this.delivering;
    await this.beforeChecks();
  }

  private undelivered(): StatusChange[] {
    return [...this.latest].flatMap(([key, result]) => {
      const from = this.known.get(key) ?? null;
      if (from === result.status || (from === null && result.status === 'pass')) return [];
      return [
        { table: result.table, check: result.check, from, to: result.status, observed: result.observed, threshold: result.threshold },
      ];
    });
  }

  private async deliver(): Promise<void> {
    for (;;) {
      const changes = this.undelivered();
      if (changes.length === 0) return;
      const sent = await postNotification(notification(changes, [...this.latest.values()]), {
        ...this.options,
        signal: this.ctx.signal,
        log: (line) => this.ctx.verbose(line),
      }).catch(() => undefined);
      // stopped (Ctrl-C): what it carried stays undelivered
      if (!sent) return;
      sayDelivery(this.ctx, changes.length, sent, 'round');
      // undelivered: the next round sends it again
      if (!sent.delivered) return;
      for (const change of changes) {
        const key = resultKey(change.table, change.check);
        this.known.set(key, change.to);
        this.deliveredHere.add(key);
      }
      this.taken.push(...changes);
    }
  }
}
