import { describe, expect, it } from 'vitest';
import { servicePace } from '../../src/http/service-pace.js';

describe('servicePace', () => {
  it.each([
    [1, 60_000, 60_000],
    [100, 600, 600],
    [0.5, 120_000, 120_000],
  ])('divides every window by the rate scale %s, and keeps the scale for retry waits', (scale, rowsMs, metadataMs) => {
    expect(servicePace(scale)).toEqual({
      windows: { rows: { requests: 60, perMs: rowsMs }, metadata: { requests: 300, perMs: metadataMs } },
      retryScale: scale,
    });
  });

  it('is the service’s own limits without a scale', () => {
    expect(servicePace()).toEqual(servicePace(1));
  });

  it.each([0, -1, Number.NaN, Number.POSITIVE_INFINITY])('refuses the scale %s', (scale) => {
    expect(() => servicePace(scale)).toThrow(/the rate scale must be a positive number/);
  });
});
