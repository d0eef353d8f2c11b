import { describe, expect, it } from 'vitest';
import { groupDue } from '../../src/mirror/read-pages.js';

// When the rows read make a group (one transaction): 32,768 rows or a second, whichever comes first (a
// first sync too: its rows wait in DuckDB's appenders, outside its memory limit).

describe('groupDue', () => {
  it('a group is written at 32,768 rows or each second', () => {
    expect(groupDue(32_767, 999)).toBe(false);
    expect(groupDue(32_768, 10)).toBe(true);
    expect(groupDue(65_536, 900)).toBe(true);
    expect(groupDue(100, 1_000)).toBe(true);
  });

  it('the first page of a pass is written at once', () => {
    expect(groupDue(100, Infinity)).toBe(true);
  });
});
