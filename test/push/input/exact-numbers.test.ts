import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exactText, parseExact, sameDecimal, stringifyExact } from '../../../src/push/input/exact-numbers.js';

const roundTrip = (text: string): string => {
  const { value, numbers } = parseExact(text);
  return stringifyExact(value, numbers);
};

describe('parseExact and stringifyExact (issue 15, item 5)', () => {
  it('keeps number literals that a double would change, exactly as read', () => {
    expect(roundTrip('{"id":9007199254740993,"a":123456789012345678901234567890,"b":1e400}')).toBe(
      '{"id":9007199254740993,"a":123456789012345678901234567890,"b":1e400}',
    );
    expect(roundTrip('{"tiny":4.9e-325,"long":0.1000000000000000055511151231257827,"nested":[{"x":-12345678901234567890}]}')).toBe(
      '{"tiny":4.9e-325,"long":0.1000000000000000055511151231257827,"nested":[{"x":-12345678901234567890}]}',
    );
  });

  it('leaves everything else to JSON.parse (no placeholders at all)', () => {
    for (const text of ['{"a":1,"b":-0.5,"c":1e21,"d":"12345678901234567890","e":1.0}', '{"e":"1e400 in a string"}']) {
      expect(parseExact(text).numbers).toBeUndefined();
      expect(parseExact(text).value).toEqual(JSON.parse(text));
    }
  });

  it('gives a key its literal back', () => {
    const { value, numbers } = parseExact('{"id":9007199254740993,"n":5}');
    const record = value as Record<string, unknown>;
    expect(exactText(record.id, numbers)).toBe('9007199254740993');
    expect(exactText(record.n, numbers)).toBe(5);
  });

  it('round-trips every JSON value with numbers of any size', () => {
    const literal = fc
      .tuple(
        fc.boolean(),
        fc.bigInt({ min: 0n, max: 10n ** 40n }),
        fc.option(fc.nat({ max: 10 ** 9 })),
        fc.option(fc.integer({ min: -400, max: 400 })),
      )
      .map(
        ([negative, int, frac, exp]) => `${negative ? '-' : ''}${int}${frac === null ? '' : `.${frac}`}${exp === null ? '' : `e${exp}`}`,
      );
    fc.assert(
      fc.property(fc.array(literal, { maxLength: 6 }), (numbers) => {
        const text = `{${numbers.map((number, i) => `"k${i}":${number}`).join(',')}}`;
        const back = roundTrip(text);
        // every literal comes back as the same decimal number (JSON.stringify may respell exact ones, e.g. 1.0 → 1)
        const literals = (body: string): string[] => [...body.matchAll(/:(-?[\d.eE+-]+)/g)].map((match) => match[1]!);
        const before = literals(text);
        const after = literals(back);
        expect(after).toHaveLength(before.length);
        before.forEach((number, i) => expect(sameDecimal(number, after[i]!), `${number} → ${after[i]}`).toBe(true));
      }),
      { numRuns: 500 },
    );
  });
});

describe('sameDecimal', () => {
  it.each([
    ['1.0', '1', true],
    ['1E2', '100', true],
    ['-0', '0', true],
    ['0.1', '0.1', true],
    ['1e21', '1e+21', true],
    ['9007199254740993', '9007199254740992', false],
    ['1e400', 'Infinity', false],
    ['0.30000000000000004', '0.30000000000000004', true],
  ])('%s and %s → %s', (a, b, expected) => expect(sameDecimal(a, b)).toBe(expected));
});
