import { describe, expect, it } from 'vitest';
import { NestConflictError, nestKeys } from '../../../src/push/input/input-record.js';

describe('nestKeys (--nest SEP)', () => {
  it('builds nested objects and keeps plain keys', () => {
    expect(nestKeys({ email: 'a@x.io', 'address.city': 'Oslo', 'address.geo.lat': '59.9', plan: 'pro' }, '.')).toEqual({
      email: 'a@x.io',
      address: { city: 'Oslo', geo: { lat: '59.9' } },
      plan: 'pro',
    });
  });

  it('returns the same object when no key has the separator', () => {
    const object = { a: 1 };
    expect(nestKeys(object, '.')).toBe(object);
  });

  it('uses any separator', () => {
    expect(nestKeys({ a__b: 1, 'a.c': 2 }, '__')).toEqual({ a: { b: 1 }, 'a.c': 2 });
  });

  it.each([
    [{ a: 'x', 'a.b': 'y' }, 'a.b'],
    [{ 'a.b': 'y', a: 'x' }, 'a'],
    [{ 'a.b': 'y', 'a.b.c': 'z' }, 'a.b.c'],
    [{ a: { c: 1 }, 'a.b': 2 }, 'a.b'],
  ])('refuses a key that is both a value and a parent: %j', (object, key) => {
    expect(() => nestKeys(object as Record<string, unknown>, '.')).toThrow(NestConflictError);
    try {
      nestKeys(object as Record<string, unknown>, '.');
    } catch (error) {
      expect((error as NestConflictError).key).toBe(key);
    }
  });

  it('keeps a __proto__ key as data instead of changing the prototype', () => {
    const result = nestKeys({ '__proto__.x': 1, 'a.b': 2 }, '.');
    expect(Object.keys(result)).toEqual(['__proto__', 'a']);
    expect(JSON.stringify(result)).toBe('{"__proto__":{"x":1},"a":{"b":2}}');
  });
});
