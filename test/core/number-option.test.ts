import { describe, expect, it } from 'vitest';
import { parseNumberOption, parseShareOption } from '../../src/core/number-option.js';
import { UsageError } from '../../src/core/errors.js';

// Numeric flags take numbers as people write them; a share (--max-share) is a decimal in (0, 1] or a percentage.

describe('parseShareOption', () => {
  const share = parseShareOption('--max-share');
  it.each([
    ['0.5', 0.5],
    ['1', 1],
    ['.25', 0.25],
    ['30%', 0.3],
    ['100%', 1],
    [' 5% ', 0.05],
    ['0.5 %', 0.005],
  ])('%j is %d', (raw, value) => {
    expect(share(raw)).toBeCloseTo(value, 12);
  });

  it.each(['0', '0%', '0x1', '1e0', '1.5', '101%', '-0.5', '', 'half', 'Infinity', '0b1', '50%%'])(
    '%j is refused, saying what a share is',
    (raw) => {
      expect(() => share(raw)).toThrow(UsageError);
      expect(() => share(raw)).toThrow(/--max-share must be a share above 0 and at most 1: a decimal \(0\.3\) or a percentage \(30%\)/);
    },
  );
});

describe('parseNumberOption', () => {
  const seconds = parseNumberOption('--every', 0.05, 86_400);
  it.each([
    ['10', 10],
    ['0.1', 0.1],
    ['1e2', 100],
  ])('%j is %d', (raw, value) => {
    expect(seconds(raw)).toBe(value);
  });
  it.each(['0x10', '0b1', '0o7', 'Infinity', '', ' ', '1_000'])('%j is refused', (raw) => {
    expect(() => seconds(raw)).toThrow(/--every must be a number from 0.05 to 86400/);
  });
});
