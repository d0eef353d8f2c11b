import { describe, expect, it } from 'vitest';
import { HashedStringSet } from '../../src/collections/hashed-string-set.js';

describe('HashedStringSet', () => {
  it('adds new IDs and reports repeats', () => {
    const set = new HashedStringSet();
    expect(set.add('row_1')).toBe(true);
    expect(set.add('row_2')).toBe(true);
    expect(set.add('row_1')).toBe(false);
    expect(set.add('')).toBe(true);
    expect(set.add('')).toBe(false);
    expect(set.size).toBe(3);
  });

  it('says whether a string is there without adding it', () => {
    const set = new HashedStringSet();
    expect(set.has('cursor_1')).toBe(false);
    set.add('cursor_1');
    expect(set.has('cursor_1')).toBe(true);
    expect(set.has('cursor_2')).toBe(false);
    expect(set.size).toBe(1);
  });

  it('keeps every ID through many growths (200,000 IDs, each once, then each a second time)', () => {
    const set = new HashedStringSet(4);
    const ids = Array.from({ length: 200_000 }, (_, i) => `rec_${i.toString(36)}-${(i * 2_654_435_761) % 1_000_003}`);
    let added = 0;
    for (const id of ids) if (set.add(id)) added += 1;
    expect(added).toBe(ids.length);
    let repeats = 0;
    for (const id of ids) if (!set.add(id)) repeats += 1;
    expect(repeats).toBe(ids.length);
    expect(set.size).toBe(ids.length);
  });

  it('tells apart IDs that differ only in case, in one character, or in non-ASCII characters', () => {
    const set = new HashedStringSet();
    for (const id of ['abc', 'ABC', 'abd', 'abc ', 'ünï', 'uni', '山田', '山畑', 'a'.repeat(300), `${'a'.repeat(299)}b`]) {
      expect(set.add(id)).toBe(true);
    }
  });
});
