import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { describeJsonFault, findJsonFault } from '../../src/core/json-error.js';

describe('findJsonFault', () => {
  it.each([
    ['{"a": 1}', undefined],
    ['[1, -2.5e3, "x\\"y\\u00e9", true, false, null, {}, []]', undefined],
    ['  "s"  ', undefined],
    ['tds_secret_key_1234', 'line 1, column 1: unexpected character'],
    ['{"a": 1,}', 'line 1, column 9: expected a property name in double quotes'],
    ['{"a" 1}', 'line 1, column 6: expected ":" after the property name'],
    ['[1 2]', 'line 1, column 4: expected "," or "]"'],
    ['{\n  "a": tru\n}', 'line 2, column 8: unexpected character'],
    ['{"a": "b', 'line 1, column 9: the JSON text ends too early'],
    ['"a\u0001"', 'line 1, column 3: a control character inside a string'],
    ['"\\x"', 'line 1, column 3: an invalid escape in a string'],
    ['{} x', 'line 1, column 4: unexpected text after the end of the JSON value'],
    ['', 'line 1, column 1: the JSON text ends too early'],
  ])('%j → %s', (text, expected) => expect(describeJsonFault(text)).toBe(expected));

  it('never quotes the text', () => {
    const fault = findJsonFault('{"filter": secret-value-9x}');
    expect(JSON.stringify(fault)).not.toMatch(/secret|value|9x/);
  });

  it('survives nesting of any depth', () => {
    expect(findJsonFault(`${'['.repeat(100_000)}${']'.repeat(100_000)}`)).toBeUndefined();
    expect(findJsonFault(`${'{"a":'.repeat(50_000)}1${'}'.repeat(49_999)}`)).toMatchObject({ problem: 'the JSON text ends too early' });
  });

  it('agrees with JSON.parse on what is valid', () => {
    fc.assert(
      fc.property(fc.oneof(fc.json(), fc.string()), (text) => {
        let valid = true;
        try {
          JSON.parse(text);
        } catch {
          valid = false;
        }
        expect(findJsonFault(text) === undefined).toBe(valid);
      }),
      { numRuns: 2000 },
    );
  });
});
