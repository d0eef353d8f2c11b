import type { TdsError } from '../core/errors.js';
import {
  errorCodeOf,
  errorFromNetwork,
  errorFromResponse,
  parseLenient,
  unexpectedResponse,
  waitTooLong,
  withoutSecrets,
} from './errors.js';
import type { RetryResult } from './retry.js';
import { MAX_RETRY_AFTER_MS, RETRY_NETWORK_CODES, type AttemptOutcome } from './retry-policy.js';
import type { RawResponse } from './transport.js';

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
  /** Kept out of the error: a service may echo the Authorization header. */
  apiKey: string;
}

/** The TdsError a failed call ends with (errors.ts words it), never holding the key. */
export function callFailure(call: FailedCall): TdsError {
  return withoutSecrets(describeFailure(call), [call.apiKey]);
}

function describeFailure({ what, last, attempts, decision, host }: FailedCall): TdsError {
  const { response } = last;
  if (decision.why === 'wait-too-long') return waitTooLong(what, decision.askedMs ?? 0, MAX_RETRY_AFTER_MS);
  if (!response) {
    const retryable = RETRY_NETWORK_CODES.includes(errorCodeOf(last.failure) ?? '');
    return errorFromNetwork({ what, error: last.failure, attempts, retryable, target: host });
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
