import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { peekNextCursor } from '../../src/http/peek-cursor.js';

const row = { id: 'r1', tableId: 't', createdAt: '', updatedAt: '', createdByUserId: null, cells: { f: { value: 'x' } } };

describe('peekNextCursor', () => {
  it('reads the cursor of a page body without parsing it', () => {
    const body = JSON.stringify({ rows: [row], limit: 100, nextCursor: 'eyJzIjoi.abc-_9', hasNextPage: true });
    expect(peekNextCursor(body)).toBe('eyJzIjoi.abc-_9');
  });

  it('allows white space around the colon', () => {
    expect(peekNextCursor('{"rows": [], "nextCursor" :\n "c2", "hasNextPage": true}')).toBe('c2');
  });

  it('gives undefined for the last page, a missing key, an empty or an escaped cursor', () => {
    expect(peekNextCursor(JSON.stringify({ rows: [], limit: 1, nextCursor: null, hasNextPage: false }))).toBeUndefined();
    expect(peekNextCursor('{"rows":[]}')).toBeUndefined();
    expect(peekNextCursor('{"nextCursor":""}')).toBeUndefined();
    expect(peekNextCursor('{"nextCursor":"a\\"b"}')).toBeUndefined();
  });

  it('takes the last occurrence, which follows the rows in a page', () => {
    const inCell = { ...row, cells: { f: { value: { nextCursor: 'from-a-cell' } } } };
    expect(peekNextCursor(JSON.stringify({ rows: [inCell], limit: 1, nextCursor: 'real', hasNextPage: true }))).toBe('real');
  });

  it('finds any plain cursor of a serialized page', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[\w.~-]{1,500}$/), fc.array(fc.jsonValue(), { maxLength: 3 }), (cursor, values) => {
        const rows = values.map((value, i) => ({ ...row, id: `r${i}`, cells: { f: { value } } }));
        expect(peekNextCursor(JSON.stringify({ rows, limit: 100, nextCursor: cursor, hasNextPage: true }))).toBe(cursor);
      }),
    );
  });
});
