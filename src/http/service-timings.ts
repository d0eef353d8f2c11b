import { UsageError } from '../core/errors.js';
import { RATE_LIMITS } from '../service/index.js';

/** At most `requests` in any window of `perMs`. */
export interface RateWindow {
  requests: number;
  perMs: number;
}

/**
 * The rate scale (TDS_RATE_SCALE, read once into the settings) turned into what the stages of a read
 * use: the windows the client paces its requests to (and an ETA counts on), and the divisor of its
 * retry waits. Made where the client is built; nothing past that point reads the scale again.
 */
export interface ServicePace {
  /** The service's limits for key endpoints (service-api.md section 8), each window divided by the scale. */
  windows: { metadata: RateWindow; rows: RateWindow };
  /** `retry-after`, backoff and the default 10 s are divided by it (RetryPolicy.rateScale). */
  retryScale: number;
}

/** The pace of a client for `rateScale` (1: the service's own limits; tests and the demo run faster). */
export function servicePace(rateScale = 1): ServicePace {
  if (!(rateScale > 0) || !Number.isFinite(rateScale)) {
    throw new UsageError(`the rate scale must be a positive number (got ${rateScale})`);
  }
  const scaled = ({ requests, perMs }: RateWindow): RateWindow => ({ requests, perMs: perMs / rateScale });
  return { windows: { metadata: scaled(RATE_LIMITS.metadata), rows: scaled(RATE_LIMITS.rows) }, retryScale: rateScale };
}
