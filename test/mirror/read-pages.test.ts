import { describe, expect, it } from 'vitest';
import { groupDue } from '../../src/mirror/read-pages.js';

// When the rows read make a group (one transaction): a pass that only appends (a first sync) waits for a
// whole row group of DuckDB's (written straight to the file) while its read is fast enough to fill one.

describe('groupDue', () => {
  it('a pass that only appends and reads fast waits for a row group (122,880 rows)', () => {
    expect(groupDue(40_000, 1_200, true)).toBe(false);
    expect(groupDue(100_000, 3_000, true)).toBe(false);
    expect(groupDue(122_880, 3_000, true)).toBe(true);
  });

  it('a pass that only appends and reads slowly (paced) is written each second', () => {
    expect(groupDue(100, 999, true)).toBe(false);
    expect(groupDue(100, 1_000, true)).toBe(true);
    expect(groupDue(6_000, 1_000, true)).toBe(true);
  });

  it('the first page of a pass is written at once', () => {
    expect(groupDue(100, Infinity, true)).toBe(true);
    expect(groupDue(100, Infinity, false)).toBe(true);
  });

  it('a pass over rows the table has (an upsert) is written at 32,768 rows or each second', () => {
    expect(groupDue(32_767, 999, false)).toBe(false);
    expect(groupDue(32_768, 10, false)).toBe(true);
    expect(groupDue(40_000, 1_000, false)).toBe(true);
  });
});
