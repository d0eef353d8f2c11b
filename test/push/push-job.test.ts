import { describe, expect, it } from 'vitest';
import { INTAKE_LONGEST_MS } from '../../src/push/key/intake-window.js';
import { pushTimings } from '../../src/push/push-job.js';
import { INTAKE_QUIET_MS, RATE_LIMITS } from '../../src/service/index.js';

describe('pushTimings', () => {
  it("unscaled, is the service's windows, a poll of rowCount a second and of --wait every 2 s", () => {
    expect(pushTimings(1, 5)).toEqual({
      retry: { maxRetries: 5, rateScale: 1 },
      webhookWindowMs: RATE_LIMITS.webhook.perMs,
      intake: { windowMs: INTAKE_LONGEST_MS, quietMs: INTAKE_QUIET_MS, pollMs: 1000 },
      waitPollMs: 2000,
    });
  });

  it.each([10, 100])('divides every window and wait by TDS_RATE_SCALE %i, and hands the scale to the retry policy', (scale) => {
    const unscaled = pushTimings(1, 3);
    const timings = pushTimings(scale, 3);
    expect(timings.retry).toEqual({ maxRetries: 3, rateScale: scale });
    expect(timings.webhookWindowMs).toBe(unscaled.webhookWindowMs / scale);
    expect(timings.waitPollMs).toBe(unscaled.waitPollMs / scale);
    for (const [name, ms] of Object.entries(unscaled.intake)) expect(timings.intake).toHaveProperty(name, ms / scale);
  });
});
