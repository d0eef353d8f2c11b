import type { RetryPolicy } from '../http/retry-policy.js';
import { INTAKE_QUIET_MS, RATE_LIMITS } from '../service/index.js';
import { INTAKE_LONGEST_MS, type IntakeTiming } from './key/intake-window.js';

/** --wait: rows show up asynchronously; reading the table every 2 s stays far inside the read limits. */
const WAIT_POLL_MS = 2_000;
/** --key: while rows of ours are awaited, the table's rowCount is read every second. */
const INTAKE_POLL_MS = 1_000;

/** The times of a push, as each stage uses them. */
export interface PushTimings {
  /** --max-retries, and the waits of retry-after and backoff (each stage says whether its request may be repeated) */
  retry: Omit<RetryPolicy, 'idempotent'>;
  /** the webhook's rate-limit window */
  webhookWindowMs: number;
  /** --key: the intake's windows and how often rows are looked for */
  intake: IntakeTiming;
  /** --wait: how often the table is read */
  waitPollMs: number;
}

/**
 * The service's windows and waits divided by TDS_RATE_SCALE (tests and the demo run the client and
 * the emulator faster alike), worked out once for the whole push: no stage knows the scale.
 */
export function pushTimings(rateScale: number, maxRetries: number): PushTimings {
  return {
    retry: { maxRetries, rateScale },
    webhookWindowMs: RATE_LIMITS.webhook.perMs / rateScale,
    intake: { windowMs: INTAKE_LONGEST_MS / rateScale, quietMs: INTAKE_QUIET_MS / rateScale, pollMs: INTAKE_POLL_MS / rateScale },
    waitPollMs: WAIT_POLL_MS / rateScale,
  };
}
