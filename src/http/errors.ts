// The one place that turns a failed request into a TdsError with the right code, message and reason
// (the command layer turns reasons into hints): the service's refusals, network failures, certificates
// this system does not trust, and `callFailure`, the end of a call the retry loop gave up on.

import { TdsError, type ErrorCode, type FailureReason, redactSecrets } from '../core/index.js';
import { RESPONSE_DEADLINE, RESPONSE_TOO_LARGE, type RawResponse } from './transport.js';
import { isLoopbackHost } from './connection-settings.js';
import { PROXY_AUTH_REQUIRED, PROXY_CODES, PROXY_TUNNEL_CLOSED, PROXY_UNAVAILABLE, PROXY_REFUSED, type TunnelFacts } from './proxy.js';
import { RETRY_STATUSES, type AttemptOutcome, MAX_RETRY_AFTER_MS, RETRY_NETWORK_CODES } from './retry-policy.js';
import type { RetryResult } from './retry.js';

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

/** `<what failed>: <service message> (HTTP <status>)`, with the code and hint of the exit codes of docs/cli.md. */
export function errorFromResponse(failure: ResponseFailure): TdsError {
  const { what, status } = failure;
  const text = serviceMessage(failure.body) ?? `the service answered HTTP ${status}`;
  // a status the spec does not list for key endpoints (403, 409, 501…) is the service's fault, as a wrong body is
  const code = CODE_BY_STATUS[status] ?? (RETRY_STATUSES.includes(status) ? 'GAVE_UP' : 'SERVICE_FAULT');
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
  /** The proxy as shownProxy shows it, when the request went through one. */
  proxy?: string;
}

export function errorFromNetwork(failure: NetworkFailure): TdsError {
  const code = errorCodeOf(failure.error);
  if (failure.proxy && code && PROXY_CODES.includes(code)) return proxyFailure({ ...failure, proxy: failure.proxy }, code);
  const where = failure.proxy ? `${failure.target} through the proxy ${failure.proxy}` : failure.target;
  if (isCertificateCode(code)) {
    return new TdsError('API', `${failure.what}: ${certificateProblem(code!, where, failure.error)}`, { cause: failure.error });
  }
  if (code === 'ECONNREFUSED' && !failure.proxy && failure.attempts.length <= 1 && isLoopbackHost(failure.target.replace(/:\d+$/, ''))) {
    // exit 6 as when the retries of a remote host run out: the same condition, found without waiting
    return new TdsError('GAVE_UP', `${failure.what}: nothing listens on ${failure.target} — is \`tds emulator\` running?`, {
      cause: failure.error,
      reason: 'unreachable',
    });
  }
  const reason = `${describeNetworkCode(code)}${code ? ` (${code})` : ''}`;
  const tried = failure.attempts.length > 1 ? `gave up after ${describeAttempts(failure.attempts)}: ` : '';
  // a response far larger than any the spec allows is the service's fault, as a body of the wrong shape is
  const errorCode = code === RESPONSE_TOO_LARGE ? 'SERVICE_FAULT' : failure.retryable ? 'GAVE_UP' : 'API';
  return new TdsError(errorCode, `${failure.what}: ${tried}${where}: ${reason}`, {
    cause: failure.error,
    reason: code === 'ECONNREFUSED' || code === 'ENOTFOUND' ? 'unreachable' : 'network',
  });
}

/**
 * A tunnel the proxy did not open (proxy.ts's PROXY_ codes): a 407 is exit 3 and says how to give
 * credentials (or that those given were refused); a closed tunnel, a proxy's 5xx or its refusal is
 * exit 6, naming the proxy and the host.
 */
function proxyFailure(failure: NetworkFailure & { proxy: string }, code: string): TdsError {
  const { what, target, proxy } = failure;
  const facts = findField(failure.error, 'tunnel') as TunnelFacts | undefined;
  const variable = facts?.variable ?? 'HTTPS_PROXY';
  const status = findField(failure.error, 'statusCode') as number | undefined;
  if (code === PROXY_AUTH_REQUIRED) {
    const message = facts?.credentials
      ? `${what}: the proxy ${proxy} refused the user name and password given in ${variable} (407)`
      : `${what}: the proxy ${proxy} asks for authentication (407): give it as http://USER:PASSWORD@HOST:PORT in ${variable}`;
    return new TdsError('AUTH', message, { cause: failure.error, status: 407 });
  }
  const tried = failure.attempts.length > 1 ? `gave up after ${describeAttempts(failure.attempts)}: ` : '';
  const happened =
    code === PROXY_TUNNEL_CLOSED
      ? `the proxy ${proxy} closed the tunnel to ${target}`
      : code === PROXY_UNAVAILABLE
        ? `the proxy ${proxy} could not open a tunnel to ${target} (HTTP ${status})`
        : `the proxy ${proxy} refused a tunnel to ${target} (HTTP ${status})`;
  return new TdsError('GAVE_UP', `${what}: ${tried}${happened}`, { cause: failure.error, reason: 'proxy' });
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

/** An answer that is not what the spec says (a 3xx, a body of the wrong shape): exit 6 with the endpoint and path. */
export function unexpectedResponse(what: string, detail: string, status: number, hint?: string): TdsError {
  return new TdsError('SERVICE_FAULT', `${what}: unexpected response from the service: ${detail} (HTTP ${status})`, { status, hint });
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
  [PROXY_TUNNEL_CLOSED]: 'the proxy closed the tunnel',
  [PROXY_UNAVAILABLE]: 'the proxy could not open a tunnel',
  [PROXY_AUTH_REQUIRED]: 'the proxy asks for authentication (407)',
  [PROXY_REFUSED]: 'the proxy refused the tunnel',
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

// A TLS certificate this system does not trust. Trying again cannot mend it and "check your connection"
// is no help: the one line names what is wrong with the certificate and what to do about it.

const UNKNOWN_CA =
  'a certificate signed by a certificate authority this system does not trust (a private CA, or a proxy that inspects TLS); ' +
  'give that CA to tds with NODE_EXTRA_CA_CERTS=/path/to/ca.pem';

const PROBLEMS: Record<string, string> = {
  DEPTH_ZERO_SELF_SIGNED_CERT:
    'a self-signed certificate, which this system does not trust; if it is the right one, trust it with NODE_EXTRA_CA_CERTS=/path/to/cert.pem',
  SELF_SIGNED_CERT_IN_CHAIN: UNKNOWN_CA,
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: UNKNOWN_CA,
  UNABLE_TO_GET_ISSUER_CERT: UNKNOWN_CA,
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: UNKNOWN_CA,
  CERT_HAS_EXPIRED: "a certificate that has expired; the server's owner must renew it (or this machine's clock is wrong)",
  CERT_NOT_YET_VALID: "a certificate that is not valid yet; check this machine's clock",
  CERT_REVOKED: "a certificate that has been revoked; the server's owner must replace it",
};

/** Whether a transport error's code is a certificate that failed verification (never worth a retry). */
export function isCertificateCode(code: string | undefined): boolean {
  return code !== undefined && (code in PROBLEMS || code === 'ERR_TLS_CERT_ALTNAME_INVALID' || /^(CERT_|ERR_TLS_CERT)/.test(code));
}

/**
 * `service.example:443 presents a certificate for other.example, not for service.example
 * (ERR_TLS_CERT_ALTNAME_INVALID); use the host name the certificate is for in the URL`.
 * `target` is `host:port` (and the proxy, if any); `error` is the transport error.
 */
export function certificateProblem(code: string, target: string, error: unknown): string {
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    const names = certificateNames(error);
    const host = hostOf(error);
    const named = names.length > 0 ? `a certificate for ${names.join(', ')}` : 'a certificate for another name';
    return (
      `${target} presents ${named}${host ? `, not for ${host}` : ''} (${code}); ` +
      `use the host name the certificate is for in the URL${names[0] ? ` (${names[0]})` : ''}, or ask the server's owner for a certificate for this name`
    );
  }
  return `${target} presents ${PROBLEMS[code] ?? `a certificate this system does not accept; check the server's certificate`} (${code})`;
}

/** The DNS names (else the common name) of the certificate a host-name check refused. */
function certificateNames(error: unknown): string[] {
  const cert = findField(error, 'cert') as { subjectaltname?: string; subject?: { CN?: string } } | undefined;
  const names = (cert?.subjectaltname ?? '')
    .split(/,\s*/)
    .filter((entry) => entry.startsWith('DNS:') || entry.startsWith('IP Address:'))
    .map((entry) => entry.replace(/^(DNS|IP Address):/, ''));
  if (names.length === 0 && cert?.subject?.CN) names.push(cert.subject.CN);
  return names.slice(0, 3);
}

function hostOf(error: unknown): string | undefined {
  const host = findField(error, 'host');
  return typeof host === 'string' ? host : undefined;
}

/** A field of the error or of one of its causes (undici may wrap the socket's error). */
function findField(error: unknown, name: string): unknown {
  for (let current = error, depth = 0; current && typeof current === 'object' && depth < 4; depth += 1) {
    const value = (current as Record<string, unknown>)[name];
    if (value !== undefined) return value;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** One try of a call: a response of any status, or the transport failure. */
export interface Attempt {
  outcome: AttemptOutcome;
  response?: RawResponse;
  failure?: unknown;
  ms: number;
}

/** Why the retry loop stopped trying. */
export type GiveUp = NonNullable<RetryResult<unknown>['decision']>;

/** A call the retry loop gave up on, and what the error may and may not say. */
export interface FailedCall {
  /** For messages: `list workspaces`, `read rows of table X`. */
  what: string;
  last: Attempt;
  /** The outcome of every attempt. */
  attempts: AttemptOutcome[];
  decision: GiveUp;
  /** The service's host, named by network errors. */
  host: string;
  /** The proxy the call went through, as shownProxy shows it. */
  proxy?: string;
  /** Kept out of the error: a service may echo the Authorization header. */
  apiKey: string;
}

/** The TdsError a failed call ends with (the functions above word it), never holding the key. */
export function callFailure(call: FailedCall): TdsError {
  return withoutSecrets(describeFailure(call), [call.apiKey]);
}

function describeFailure({ what, last, attempts, decision, host, proxy }: FailedCall): TdsError {
  const { response } = last;
  if (decision.why === 'wait-too-long') return waitTooLong(what, decision.askedMs ?? 0, MAX_RETRY_AFTER_MS);
  if (!response) {
    const retryable = RETRY_NETWORK_CODES.includes(errorCodeOf(last.failure) ?? '');
    return errorFromNetwork({ what, error: last.failure, attempts, retryable, target: host, ...(proxy ? { proxy } : {}) });
  }
  if (response.status >= 300 && response.status < 400) return redirectError(what, response);
  return errorFromResponse({ what, status: response.status, body: parseLenient(response.text), attempts });
}

/** tds never follows a redirect: the key must not travel to another address. */
function redirectError(what: string, response: RawResponse): TdsError {
  const location = response.headers.location;
  let target = '';
  if (typeof location === 'string') {
    try {
      const url = new URL(location, 'http://relative.invalid');
      target = url.host === 'relative.invalid' ? ` to ${url.pathname}` : ` to ${url.origin}${url.pathname}`;
    } catch {
      target = '';
    }
  }
  return unexpectedResponse(
    what,
    `a redirect${target}`,
    response.status,
    'tds does not follow redirects (the API key goes only to the base URL); check the base URL',
  );
}
