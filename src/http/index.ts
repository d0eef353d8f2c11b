// src/http/: the one HTTP core. Its surface: ApiClient (client.ts, the service's client), the one stack
// (stack.ts: the transport behind a limiter and withRetries, the one retry loop; postOnce), RateLimiter
// and serviceTimings (rate-limiter.ts), the retry policy (retry-policy.ts), paginate, resolveTable and
// resolveWorkspace, the base URL and key checks (connection-settings.ts), the proxy rule (proxy.ts), the
// errors of errors.ts. Loaded by the commands' actions, never by their definitions.

export { ApiClient, DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_MS } from './client.js';
export { checkKeyText, isLoopbackHost, parseBaseUrl } from './connection-settings.js';
export {
  certificateProblem,
  describeNetworkCode,
  errorCodeOf,
  isCertificateCode,
  parseLenient,
  serviceMessage,
  waitTooLong,
  errorFromNetwork,
} from './errors.js';
export { paginate } from './paginate.js';
export { PROXY_CODES, proxyFor, proxySettings, shownProxy, type ProxySettings } from './proxy.js';
export { RateLimiter, serviceTimings, type RateLimitSlot, type RateWindow } from './rate-limiter.js';
export { resolveTable, resolveWorkspace } from './resolve-table.js';
export {
  MAX_RETRY_AFTER_MS,
  parseRetryAfter,
  wasNotSent,
  type AttemptOutcome,
  type RetryDecision,
  type RetryPolicy,
} from './retry-policy.js';
export { withRetries, type AttemptReport } from './retry.js';
export { attemptRequest, isSuccess, postOnce } from './stack.js';
export { RESPONSE_DEADLINE, Transport } from './transport.js';
