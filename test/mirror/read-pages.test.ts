import { describe, expect, it } from 'vitest';
import { groupDue } from '../../src/mirror/read-pages.js';

// When the rows read make a group (one transaction): 32,768 rows or a second, whichever comes first; a pass
// that only appends (a first sync), 65,536 rows or a second.

describe('groupDue', () => {
  it('a pass that only appends is written at 65,536 rows or each second', () => {
    expect(groupDue(40_000, 900, true)).toBe(false);
    expect(groupDue(65_535, 900, true)).toBe(false);
    expect(groupDue(65_536, 900, true)).toBe(true);
    expect(groupDue(100, 1_000, true)).toBe(true);
  });

  it('a pass over rows the table has (an upsert) is written at 32,768 rows or each second', () => {
    expect(groupDue(32_767, 999, false)).toBe(false);
    expect(groupDue(32_768, 10, false)).toBe(true);
    expect(groupDue(100, 1_000, false)).toBe(true);
  });

  it('the first page of a pass is written at once', () => {
    expect(groupDue(100, Infinity, true)).toBe(true);
    expect(groupDue(100, Infinity, false)).toBe(true);
  });
});
