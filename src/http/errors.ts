import { TdsError, type ErrorCode, type FailureReason } from '../core/errors.js';
import { redactSecrets } from '../core/redact.js';
import { certificateProblem, isCertificateCode } from './certificate-error.js';
import { RESPONSE_DEADLINE, RESPONSE_TOO_LARGE } from './read-body.js';
import { isLoopbackHost } from './base-url.js';
import { RETRY_STATUSES, type AttemptOutcome } from './retry-policy.js';

// The one place that turns a failed request into a TdsError with the right code, message and reason
// (the command layer turns reasons into hints).

const CODE_BY_STATUS: Record<number, ErrorCode> = { 400: 'USAGE', 401: 'AUTH', 402: 'PAUSED', 404: 'NOT_FOUND' };

const REASON_BY_CODE: Partial<Record<ErrorCode, FailureReason>> = {
  AUTH: 'bad-key',
  PAUSED: 'paused',
  NOT_FOUND: 'table-not-found',
};

export interface ResponseFailure {
  /** What failed, e.g. `list workspaces`. */
  what: string;
  status: number;
  /** The parsed JSON body, or its text when it was not JSON. */
  body: unknown;
  /** Every attempt, when the request was retried until the retries ran out. */
  attempts?: AttemptOutcome[];
}

/** `<what failed>: <service message> (HTTP <status>)`, with the code and hint of CLI.md's exit codes. */
export function errorFromResponse(failure: ResponseFailure): TdsError {
  const { what, status } = failure;
  const text = serviceMessage(failure.body) ?? `the service answered HTTP ${status}`;
  const code = CODE_BY_STATUS[status] ?? (RETRY_STATUSES.includes(status) ? 'GAVE_UP' : 'API');
  const attempts = failure.attempts ?? [];
  if (code === 'GAVE_UP' && attempts.length > 1) {
    const reason = status === 429 ? 'rate-limit-exhausted' : 'retries-exhausted';
    return new TdsError(code, `${what}: gave up after ${describeAttempts(attempts)}: ${text} (HTTP ${status})`, { status, reason });
  }
  const reason = REASON_BY_CODE[code];
  return new TdsError(code, `${what}: ${text} (HTTP ${status})`, { status, ...(reason ? { reason } : {}) });
}

export interface NetworkFailure {
  what: string;
  /** The transport error (undici or node:net). */
  error: unknown;
  attempts: AttemptOutcome[];
  /** Whether the failure was of a kind that is retried (then running out of retries means GAVE_UP). */
  retryable: boolean;
  /** `host:port` of the base URL, for the message. */
  target: string;
}

export function errorFromNetwork(failure: NetworkFailure): TdsError {
  const code = errorCodeOf(failure.error);
  if (isCertificateCode(code)) {
    return new TdsError('API', `${failure.what}: ${certificateProblem(code!, failure.target, failure.error)}`, { cause: failure.error });
  }
  if (code === 'ECONNREFUSED' && failure.attempts.length <= 1 && isLoopbackHost(failure.target.replace(/:\d+$/, ''))) {
    // exit 6 as when the retries of a remote host run out: the same condition, found without waiting
    return new TdsError('GAVE_UP', `${failure.what}: nothing listens on ${failure.target} — is \`tds emulator\` running?`, {
      cause: failure.error,
      reason: 'unreachable',
    });
  }
  const reason = `${describeNetworkCode(code)}${code ? ` (${code})` : ''}`;
  const tried = failure.attempts.length > 1 ? `gave up after ${describeAttempts(failure.attempts)}: ` : '';
  return new TdsError(failure.retryable ? 'GAVE_UP' : 'API', `${failure.what}: ${tried}${failure.target}: ${reason}`, {
    cause: failure.error,
    reason: code === 'ECONNREFUSED' || code === 'ENOTFOUND' ? 'unreachable' : 'network',
  });
}

/** The same error with every secret replaced in its message and hint. */
export function withoutSecrets(error: TdsError, secrets: readonly string[]): TdsError {
  const message = redactSecrets(error.message, secrets);
  const hint = error.hint === undefined ? undefined : redactSecrets(error.hint, secrets);
  if (message === error.message && hint === error.hint) return error;
  return new TdsError(error.code, message, {
    ...(hint !== undefined ? { hint } : {}),
    ...(error.reason ? { reason: error.reason } : {}),
    ...(error.status !== undefined ? { status: error.status } : {}),
    cause: error.cause,
  });
}

/** A 429 whose `retry-after` asks for longer than tds waits: give up now (exit 6), saying what was asked. */
export function waitTooLong(what: string, askedMs: number, capMs: number, status = 429): TdsError {
  const asked = Math.round(askedMs / 1000).toLocaleString('en-US');
  return new TdsError(
    'GAVE_UP',
    `${what}: the service asked to wait ${asked} s before trying again (HTTP ${status}); tds waits at most ${capMs / 1000} s, so it gave up`,
    {
      status,
      reason: 'rate-limit-exhausted',
    },
  );
}

/** An answer that is not what the spec says (a 3xx, a body of the wrong shape): exit 1 with the endpoint and path. */
export function unexpectedResponse(what: string, detail: string, status: number, hint?: string): TdsError {
  return new TdsError('API', `${what}: unexpected response from the service: ${detail} (HTTP ${status})`, { status, hint });
}

/** The service's `message`, or a one-line excerpt of a non-JSON body (an HTML page: its title, or its text). */
export function serviceMessage(body: unknown): string | undefined {
  if (body && typeof body === 'object' && typeof (body as { message?: unknown }).message === 'string') {
    return oneLine((body as { message: string }).message);
  }
  if (typeof body !== 'string' || body.trim() === '') return undefined;
  return oneLine(looksLikeHtml(body) ? htmlText(body) : body) || undefined;
}

const MESSAGE_MAX_CHARS = 200;

function oneLine(text: string): string {
  const flat = text.replace(/[\s\u0000-\u001f\u007f]+/g, ' ').trim();
  return flat.length > MESSAGE_MAX_CHARS ? `${flat.slice(0, MESSAGE_MAX_CHARS)}…` : flat;
}

function looksLikeHtml(text: string): boolean {
  return /<\s*(!doctype|html|head|body|title|h1|p|div)\b/i.test(text.slice(0, 2000));
}

/** A gateway's error page as words: its <title> (or first <h1>), else its text without tags, scripts and styles. */
function htmlText(html: string): string {
  const heading = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html) ?? /<h1[^>]*>([\s\S]*?)<\/h1>/i.exec(html);
  const text = heading?.[1] ?? html.replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ');
  return decodeEntities(text.replace(/<[^>]*>/g, ' '));
}

function decodeEntities(text: string): string {
  const named = new Map([
    ['amp', '&'],
    ['lt', '<'],
    ['gt', '>'],
    ['quot', '"'],
    ['apos', "'"],
    ['nbsp', ' '],
  ]);
  return text.replace(/&(#\d+|#x[\da-f]+|[a-z]+);/gi, (entity, name: string) => {
    if (name[0] !== '#') return named.get(name.toLowerCase()) ?? entity;
    const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
    return Number.isSafeInteger(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : entity;
  });
}

/** `6 attempts (HTTP 500 ×3, HTTP 429 ×2, connection reset ×1)` */
export function describeAttempts(attempts: AttemptOutcome[]): string {
  const counts = new Map<string, number>();
  for (const outcome of attempts) {
    const label = outcome.kind === 'status' ? `HTTP ${outcome.status}` : describeNetworkCode(outcome.code);
    counts.set(label, (counts.get(label) ?? 0) + 1);
  }
  const parts = [...counts].map(([label, count]) => `${label} ×${count}`);
  return `${attempts.length} attempt${attempts.length === 1 ? '' : 's'} (${parts.join(', ')})`;
}

const NETWORK_TEXT: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  UND_ERR_SOCKET: 'connection reset',
  UND_ERR_CLOSED: 'connection closed',
  EPIPE: 'connection reset',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host lookup failed',
  UND_ERR_CONNECT_TIMEOUT: 'connect timeout',
  UND_ERR_HEADERS_TIMEOUT: 'no response in time',
  UND_ERR_BODY_TIMEOUT: 'response stalled',
  ETIMEDOUT: 'timed out',
  [RESPONSE_TOO_LARGE]: 'the response was too large to be a page of this service',
  [RESPONSE_DEADLINE]: 'the response did not arrive in full in time',
};

export function describeNetworkCode(code: string | undefined): string {
  return (code && NETWORK_TEXT[code]) || 'network error';
}

/**
 * The `code` of a transport error, looking through `cause` (fetch-style wrapping) and into the first
 * of `errors` (an AggregateError: a connection tried on every address of a host).
 */
export function errorCodeOf(error: unknown): string | undefined {
  for (let current = error, depth = 0; current && typeof current === 'object' && depth < 4; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    const { errors, cause } = current as { errors?: unknown; cause?: unknown };
    current = cause ?? (Array.isArray(errors) ? errors[0] : undefined);
  }
  return undefined;
}

/** A response body as JSON when it is JSON, else its text (an error page, a plain message, nothing). */
export function parseLenient(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
