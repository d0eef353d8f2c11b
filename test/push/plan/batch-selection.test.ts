import { describe, expect, it } from 'vitest';
import { overlaps, parseBatchSelection, selects } from '../../../src/push/plan/resume-plan.js';

describe('parseBatchSelection', () => {
  it.each([
    [
      '44-46,47',
      [
        { first: 44, last: 46 },
        { first: 47, last: 47 },
      ],
    ],
    [
      ' 3 , 5 - 6 ',
      [
        { first: 3, last: 3 },
        { first: 5, last: 6 },
      ],
    ],
    [true, 'all'],
  ] as const)('%s → %j', (text, expected) => expect(parseBatchSelection('--x', text)).toEqual(expected));

  it.each(['', '0', '5-3', '@signups', 'data.csv', '1,,2', 'a-b'])('refuses %j with the flag and an example', (text) => {
    expect(() => parseBatchSelection('--accept-uncertain', text)).toThrow(/--accept-uncertain takes batch numbers such as 44-46,47/);
  });
});

describe('selects and overlaps', () => {
  const some = parseBatchSelection('--x', '2-4,9');
  it.each([
    [1, false],
    [2, true],
    [4, true],
    [5, false],
    [9, true],
  ])('batch %i → %s', (batch, expected) => expect(selects(some, batch)).toBe(expected));

  it('tells whether two selections share a batch', () => {
    expect(selects(undefined, 1)).toBe(false);
    expect(selects('all', 7)).toBe(true);
    expect(overlaps(some, parseBatchSelection('--x', '5-8'))).toBe(false);
    expect(overlaps(some, parseBatchSelection('--x', '4'))).toBe(true);
    expect(overlaps('all', parseBatchSelection('--x', '100'))).toBe(true);
  });
});
