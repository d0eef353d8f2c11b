import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fillBar, proportionalWidths, sparkline } from '../../src/stats/terminal-report.js';

describe('fillBar', () => {
  it.each([
    [0, 4, '░░░░'],
    [1, 4, '████'],
    [0.5, 4, '██░░'],
    [0.3, 4, '█▎░░'],
    [0.01, 10, '▏░░░░░░░░░'],
    [2, 3, '███'],
  ])('%d of %d characters: %s', (fraction, width, bar) => {
    expect(fillBar(fraction, width)).toBe(bar);
  });

  it('is always as wide as asked', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1, noNaN: true }), fc.integer({ min: 1, max: 80 }), (f, w) => {
        expect(Array.from(fillBar(f, w))).toHaveLength(w);
      }),
    );
  });
});

describe('proportionalWidths', () => {
  it.each([
    [[2, 5, 1, 1, 1, 1, 1, 1, 2], 15, [2, 5, 1, 1, 1, 1, 1, 1, 2]],
    [[1, 0, 999], 10, [1, 0, 9]],
    [[0, 0], 10, [0, 0]],
    [[1, 1, 1], 2, [0, 1, 1]],
  ])('%j in %d characters: %j', (counts, width, widths) => {
    expect(proportionalWidths(counts, width)).toEqual(widths);
  });

  it('adds up to the width, and gives every count at least one character when there are enough', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(1_000_000), { minLength: 1, maxLength: 9 }), fc.integer({ min: 1, max: 120 }), (counts, width) => {
        const widths = proportionalWidths(counts, width);
        if (counts.every((n) => n === 0)) {
          expect(widths.every((w) => w === 0)).toBe(true);
          return;
        }
        expect(widths.reduce((a, b) => a + b, 0)).toBe(width);
        counts.forEach((n, i) => n === 0 && expect(widths[i]).toBe(0));
        if (counts.filter((n) => n > 0).length <= width) counts.forEach((n, i) => n > 0 && expect(widths[i]).toBeGreaterThan(0));
      }),
    );
  });
});

describe('sparkline', () => {
  it('draws each value in eighths of the largest', () => {
    expect(sparkline([1, 2, 4, 8, 0])).toBe('▁▂▄█ ');
    expect(sparkline([5, 5, 5])).toBe('███');
    expect(sparkline([])).toBe('');
  });
});
