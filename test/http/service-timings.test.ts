import { describe, expect, it } from 'vitest';
import { serviceTimings } from '../../src/http/service-timings.js';

describe('serviceTimings', () => {
  it.each([
    [1, 60_000, 60_000],
    [100, 600, 600],
    [0.5, 120_000, 120_000],
  ])('divides every window by the rate scale %s, and keeps the scale for retry waits', (scale, rowsMs, metadataMs) => {
    expect(serviceTimings(scale)).toEqual({
      windows: { rows: { requests: 60, perMs: rowsMs }, metadata: { requests: 300, perMs: metadataMs } },
      retryScale: scale,
    });
  });

  it('is the service’s own limits without a scale', () => {
    expect(serviceTimings()).toEqual(serviceTimings(1));
  });

  it.each([0, -1, Number.NaN, Number.POSITIVE_INFINITY])('refuses the scale %s', (scale) => {
    expect(() => serviceTimings(scale)).toThrow(/the rate scale must be a positive number/);
  });
});
