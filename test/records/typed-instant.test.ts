import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalInstantMillis, isCanonicalInstant, toTyped, UNFIT } from '../../src/records/typed-values.js';

/** The conversion before the fast path for canonical text: the oracle every input must agree with. */
function slowInstant(value: unknown): string | typeof UNFIT {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(value.trim())) {
    return UNFIT;
  }
  const ms = Date.parse(value.trim());
  return Number.isNaN(ms) ? UNFIT : new Date(ms).toISOString();
}

const MIN_MS = Date.parse('0000-01-01T00:00:00.000Z');
const MAX_MS = Date.parse('9999-12-31T23:59:59.999Z');
/** Text as Date#toISOString writes it, years 0000 to 9999. */
const canonical = fc.integer({ min: MIN_MS, max: MAX_MS }).map((ms) => new Date(ms).toISOString());
/** Canonical text with one character replaced by one of those that make near misses (digits, separators, space). */
const nearMiss = fc
  .tuple(canonical, fc.nat(23), fc.constantFrom(...'0123456789-:.TZ+ zt/'.split('')))
  .map(([text, at, char]) => text.slice(0, at) + char + text.slice(at + 1));
/** Digits in the canonical layout whatever they make: month 00 or 13, February 30, hour 24, second 60. */
const anyDigits = fc
  .tuple(fc.nat(9999), fc.nat(99), fc.nat(99), fc.nat(99), fc.nat(99), fc.nat(99), fc.nat(999))
  .map(
    ([y, mo, d, h, mi, s, ms]) =>
      `${String(y).padStart(4, '0')}-${String(mo).padStart(2, '0')}-${String(d).padStart(2, '0')}T` +
      `${String(h).padStart(2, '0')}:${String(mi).padStart(2, '0')}:${String(s).padStart(2, '0')}.${String(ms).padStart(3, '0')}Z`,
  );

describe('TIMESTAMPTZ values', () => {
  it('canonical text converts to itself, as the parse and format gave', () => {
    fc.assert(
      fc.property(canonical, (text) => {
        expect(isCanonicalInstant(text)).toBe(true);
        expect(toTyped('TIMESTAMPTZ', text)).toBe(slowInstant(text));
      }),
      { numRuns: 20_000 },
    );
  });

  it.each([
    ['canonical text', canonical],
    ['canonical layout, any digits', anyDigits],
    ['near misses of canonical text', nearMiss],
  ])(
    '%s: the appender counts the milliseconds of canonical text as Date.parse does, and of no other',
    (_name, texts: fc.Arbitrary<string>) => {
      fc.assert(
        fc.property(texts, (text) => {
          expect(canonicalInstantMillis(text)).toBe(slowInstant(text) === text ? Date.parse(text) : undefined);
        }),
        { numRuns: 20_000 },
      );
    },
  );

  it.each([
    ['canonical layout, any digits', anyDigits],
    ['near misses of canonical text', nearMiss],
    [
      'other ISO forms',
      fc.oneof(
        canonical.map((text) => text.slice(0, 10)),
        canonical.map((text) => ` ${text.replace('T', ' ')} `),
      ),
    ],
    ['any text', fc.string({ maxLength: 30 })],
    ['any value', fc.anything()],
  ])('%s convert as the parse and format gives', (_name, values: fc.Arbitrary<unknown>) => {
    fc.assert(
      fc.property(values, (value) => {
        expect(toTyped('TIMESTAMPTZ', value)).toBe(value === null || value === undefined ? null : slowInstant(value));
      }),
      { numRuns: 20_000 },
    );
  });

  it.each([
    ['2024-02-29T12:00:00.000Z', true],
    ['2023-02-29T12:00:00.000Z', false],
    ['2000-02-29T00:00:00.000Z', true],
    ['1900-02-29T00:00:00.000Z', false],
    ['2024-04-31T00:00:00.000Z', false],
    ['2024-01-01T24:00:00.000Z', false],
    ['2024-01-01T23:60:00.000Z', false],
    ['2024-01-01T23:59:60.000Z', false],
    ['0000-01-01T00:00:00.000Z', true],
    ['2024-01-01T00:00:00.000z', false],
    ['2024-01-01T00:00:00Z', false],
    ['+012024-01-01T00:00:00.000Z', false],
  ])('%s is canonical: %s (and converts as the parse and format gives)', (text, expected) => {
    expect(isCanonicalInstant(text)).toBe(expected);
    expect(toTyped('TIMESTAMPTZ', text)).toBe(slowInstant(text));
  });
});
