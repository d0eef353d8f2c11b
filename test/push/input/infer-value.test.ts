import { describe, expect, it } from 'vitest';
import { inferValue } from '../../../src/push/input/read-delimited.js';

describe('inferValue (--types infer)', () => {
  it.each([
    ['123', 123],
    ['-7', -7],
    ['0', 0],
    ['1.5', 1.5],
    ['-0.25', -0.25],
    ['1.50', 1.5],
    ['true', true],
    ['false', false],
    ['123456789012345', 123456789012345],
  ])('%j → %j', (text, expected) => expect(inferValue(text)).toBe(expected));

  it.each([
    ['00123', 'leading zeros (zip codes, ids) stay text'],
    ['-0', 'would lose its sign'],
    ['1e5', 'exponent'],
    ['.5', 'no integer part'],
    ['5.', 'no fraction digits'],
    ['+5', 'plus sign'],
    [' 5', 'space'],
    ['1,000', 'grouping'],
    ['TRUE', 'only lower-case booleans'],
    ['True', 'only lower-case booleans'],
    ['12345678901234567890', 'past double precision'],
    ['0.1234567890123456', 'past double precision'],
    ['NaN', 'not a number literal'],
    ['', 'empty'],
  ])('%j stays text (%s)', (text) => expect(inferValue(text)).toBe(text));
});
