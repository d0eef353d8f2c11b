import { describe, expect, it } from 'vitest';
import { parseExact } from '../../../src/push/input/exact-numbers.js';
import type { PlainObject } from '../../../src/push/input/nest-keys.js';
import { parseKeyMapping, recordKey } from '../../../src/push/key/record-key.js';

/** recordKey of a JSON text, read as the JSON readers read it (exact number literals kept). */
function keyOfJson(json: string, field: string): ReturnType<typeof recordKey> {
  const { value, numbers } = parseExact(json);
  return recordKey(value as PlainObject, numbers, field);
}

describe('parseKeyMapping', () => {
  it.each([
    ['email', { field: 'email', column: 'email' }],
    ['email=Email address', { field: 'email', column: 'Email address' }],
    [' email = Email ', { field: 'email', column: 'Email' }],
    ['address.email=f_123', { field: 'address.email', column: 'f_123' }],
    // only the first = separates: a column label may hold one
    ['id=a=b', { field: 'id', column: 'a=b' }],
    ['a.b', { field: 'a.b', column: 'a.b' }],
  ])('%j → %j', (text, spec) => {
    expect(parseKeyMapping(text)).toEqual(spec);
  });
});

describe('recordKey', () => {
  it('reads a string key as it is', () => {
    expect(recordKey({ email: 'Ann@Example.com', x: 1 }, undefined, 'email')).toEqual({ key: 'Ann@Example.com' });
    // not trimmed, not folded: folding is the column's business
    expect(recordKey({ id: ' a ' }, undefined, 'id')).toEqual({ key: ' a ' });
  });

  it('follows a dotted path into nested objects', () => {
    expect(recordKey({ address: { email: 'a@b.c' } }, undefined, 'address.email')).toEqual({ key: 'a@b.c' });
    expect(recordKey({ a: { b: { c: 'deep' } } }, undefined, 'a.b.c')).toEqual({ key: 'deep' });
    expect(recordKey({ a: { 'b.c': 'mixed' } }, undefined, 'a.b.c')).toEqual({ key: 'mixed' });
  });

  it('takes a key that literally holds the dot before the path', () => {
    expect(recordKey({ 'a.b': 'flat', a: { b: 'nested' } }, undefined, 'a.b')).toEqual({ key: 'flat' });
    expect(recordKey({ a: { b: 'nested' } }, undefined, 'a.b')).toEqual({ key: 'nested' });
  });

  it('does not read inherited members', () => {
    expect(recordKey({}, undefined, 'toString')).toMatchObject({ problem: expect.stringContaining('has no') });
    expect(recordKey({ a: {} }, undefined, 'a.constructor')).toMatchObject({ problem: expect.stringContaining('has no') });
  });

  it('turns numbers and booleans into their text; a number as its exact literal', () => {
    expect(recordKey({ id: 42 }, undefined, 'id')).toEqual({ key: '42' });
    expect(recordKey({ id: 1.5 }, undefined, 'id')).toEqual({ key: '1.5' });
    expect(recordKey({ ok: true }, undefined, 'ok')).toEqual({ key: 'true' });
    expect(keyOfJson('{"id": 9007199254740993}', 'id')).toEqual({ key: '9007199254740993' });
    expect(keyOfJson('{"a": {"id": 12345678901234567890}}', 'a.id')).toEqual({ key: '12345678901234567890' });
    expect(keyOfJson('{"id": 7}', 'id')).toEqual({ key: '7' });
  });

  it.each<[string, PlainObject, string]>([
    ['missing', { other: 'x' }, 'it has no "id"'],
    ['null', { id: null }, 'it has no "id"'],
    ['empty', { id: '' }, 'it has no "id"'],
    ['blank', { id: '  \t ' }, 'its "id" is blank'],
    ['an object', { id: { x: 1 } }, 'its "id" is not a plain value'],
    ['an array', { id: ['a'] }, 'its "id" is not a plain value'],
    ['under a value that is not an object', { id: 'text' }, 'it has no "id.x"'],
  ])('a key that is %s is a problem', (_name, value, problem) => {
    const field = problem.includes('id.x') ? 'id.x' : 'id';
    expect(recordKey(value, undefined, field)).toEqual({ problem });
  });

  it('accepts 200 characters and rejects 201, counted in code points', () => {
    expect(recordKey({ id: 'a'.repeat(200) }, undefined, 'id')).toEqual({ key: 'a'.repeat(200) });
    expect(recordKey({ id: 'a'.repeat(201) }, undefined, 'id')).toMatchObject({ problem: expect.stringContaining('more than 200') });
    // 200 emoji are 400 string units and still 200 characters
    const emoji = '😀'.repeat(200);
    expect(recordKey({ id: emoji }, undefined, 'id')).toEqual({ key: emoji });
    expect(recordKey({ id: `${emoji}x` }, undefined, 'id')).toMatchObject({ problem: expect.stringContaining('more than 200') });
    // a number literal of 201 digits (kept exactly) too, and one of 200 accepted
    expect(keyOfJson(`{"id": ${'12'.repeat(100)}3}`, 'id')).toMatchObject({ problem: expect.stringContaining('more than 200') });
    expect(keyOfJson(`{"id": ${'12'.repeat(100)}}`, 'id')).toEqual({ key: '12'.repeat(100) });
  });
});
