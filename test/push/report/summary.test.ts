import { describe, expect, it } from 'vitest';
import { recordsText } from '../../../src/push/plan/batch.js';
import { formatRanges, mergeRanges, rangesOf } from '../../../src/push/report/summary.js';

describe('record ranges', () => {
  it('merges touching and overlapping ranges, in order', () => {
    expect(
      mergeRanges([
        { first: 501, last: 1000 },
        { first: 1, last: 500 },
        { first: 2000, last: 2100 },
        { first: 2050, last: 2060 },
      ]),
    ).toEqual([
      { first: 1, last: 1000 },
      { first: 2000, last: 2100 },
    ]);
  });

  it('turns record numbers into ranges', () => {
    expect(rangesOf([7, 1, 2, 3])).toEqual([
      { first: 1, last: 3 },
      { first: 7, last: 7 },
    ]);
  });

  it.each([
    [[{ first: 1001, last: 1500 }], '1001–1500'],
    [
      [
        { first: 4, last: 4 },
        { first: 9, last: 12 },
      ],
      '4, 9–12',
    ],
    [Array.from({ length: 10 }, (_, i) => ({ first: i * 10, last: i * 10 })), '0, 10, 20, 30, 40, 50, 60, 70 and 2 more'],
  ])('formats %j as %s', (ranges, text) => expect(formatRanges(ranges)).toBe(text));
});

describe('recordsText', () => {
  it('names one record in the singular and a range in the plural', () => {
    expect(recordsText({ first: 2, last: 2 })).toBe('record 2');
    expect(recordsText({ first: 1, last: 3 })).toBe('records 1–3');
  });
});
