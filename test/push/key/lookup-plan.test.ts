import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { keyColumn, type KeyColumn } from '../../../src/push/key/record-key.js';
import { packKeyQueries, RULES_PER_QUERY, chooseLookupPlan, type PlanInput } from '../../../src/push/key/key-lookups.js';
import type { ColumnType } from '../../../src/service/index.js';

const columnOf = (type: ColumnType): KeyColumn =>
  keyColumn([{ id: 'k', name: 'email', label: 'Email', type, options: null, isSystem: false }], 'k');
const keys = (count: number): string[] => Array.from({ length: count }, (_, i) => `user${i}@example.com`);
const plan = (input: Partial<PlanInput> & Pick<PlanInput, 'rowCount'>) => {
  const list = input.keys ?? keys(10);
  return chooseLookupPlan({ column: columnOf('email'), keys: list, keyCount: list.length, ...input });
};

describe('chooseLookupPlan', () => {
  it('reads a small table once rather than querying for many keys', () => {
    const chosen = plan({ keys: keys(1000), rowCount: 250 });
    expect(chosen).toMatchObject({ kind: 'full-read', requests: 3 });
    expect(chosen.text).toBe("the table's 250 rows read once (3 row requests), 1,000 keys checked locally");
  });

  it('queries a few keys in a big table', () => {
    const chosen = plan({ keys: keys(10), rowCount: 1_000_000 });
    // 10 `=` rules in one query, whose matches come back in its own answer
    expect(chosen).toMatchObject({ kind: 'queries', requests: 1 });
    expect(chosen.text).toBe('10 keys looked up in 1 filter query (`=` rules on "Email"), up to 1 row request');
  });

  it('counts every query, and every further page of matches', () => {
    // 250 `=` rules → 3 queries of at most 97 matches each: one page apiece
    expect(plan({ keys: keys(250), rowCount: 1_000_000 })).toMatchObject({ kind: 'queries', requests: 3 });
    // 5,000 text keys in an `in` list or two: their matches take 50 pages
    const text = Array.from({ length: 5000 }, (_, i) => `k${i}`);
    const many = chooseLookupPlan({ column: columnOf('text'), keys: text, keyCount: text.length, rowCount: 10 ** 6 });
    expect(many.requests).toBeGreaterThanOrEqual(50);
    // the share of keys expected to be found: few found, few pages
    const few = chooseLookupPlan({ column: columnOf('text'), keys: text, keyCount: text.length, rowCount: 10 ** 6, found: 0.1 });
    expect(few.requests).toBeLessThan(many.requests);
    expect(few.text).toContain('about');
    // matches cannot outnumber the rows
    expect(plan({ keys: keys(250), rowCount: 2 }).kind).toBe('full-read');
  });

  it('scales the queries of a sample to every key', () => {
    const sample = keys(RULES_PER_QUERY);
    const chosen = chooseLookupPlan({ column: columnOf('email'), keys: sample, keyCount: 10 * RULES_PER_QUERY, rowCount: 10 ** 7 });
    expect(chosen).toMatchObject({ kind: 'queries', requests: 10 });
    expect(chosen.text).toContain('970 keys looked up in 10 filter queries');
  });

  it('packs `in` lists: many text keys in few queries', () => {
    const list = Array.from({ length: 5000 }, (_, i) => `k${i}`);
    const chosen = chooseLookupPlan({ column: columnOf('text'), keys: list, keyCount: list.length, rowCount: 10 ** 6 });
    const queries = packKeyQueries(columnOf('text'), list).length;
    expect(chosen).toMatchObject({ kind: 'queries', requests: queries * Math.max(1, Math.ceil(5000 / queries / 100)) });
    expect(chosen.text).toContain('`in` lists');
    const url = chooseLookupPlan({ column: columnOf('url'), keys: list.slice(0, 5), keyCount: 5, rowCount: 10 ** 6 });
    expect(url.text).toContain('containsAnyOf lists');
  });

  it('uses the mirror when its sync is cheapest', () => {
    const chosen = plan({ keys: keys(5000), rowCount: 100_000, mirrorRequests: 2 });
    expect(chosen).toMatchObject({ kind: 'mirror', requests: 2 });
    expect(chosen.text).toBe('the local mirror synced first (about 2 row requests), 5,000 keys checked in it');
    // a mirror that would cost more is not used
    expect(plan({ keys: keys(3), rowCount: 100_000, mirrorRequests: 50 }).kind).toBe('queries');
    // no mirror: never the mirror
    expect(plan({ keys: keys(5000), rowCount: 100_000 }).kind).not.toBe('mirror');
  });

  it('reads the rows created since the push began when they are few', () => {
    const chosen = plan({ keys: keys(5000), rowCount: 100_000, recentRows: 5100 });
    expect(chosen).toMatchObject({ kind: 'recent', requests: 51 });
    expect(chosen.text).toBe('the 5,100 rows created since the push began read newest first (51 row requests)');
  });

  it('says one key, one query and one request in the singular', () => {
    const chosen = plan({ keys: keys(1), rowCount: 1_000_000 });
    expect(chosen.text).toBe('1 key looked up in 1 filter query (`=` rules on "Email"), up to 1 row request');
    const read = plan({ keys: keys(200), rowCount: 1, mirrorRequests: 5 });
    expect(read).toMatchObject({ kind: 'full-read', requests: 1 });
    expect(read.text).toMatch(/ read once \(1 row request\), 200 keys checked locally$/);
    expect(plan({ keys: keys(200), rowCount: 10 ** 6, mirrorRequests: 1 }).text).toBe(
      'the local mirror synced first (about 1 row request), 200 keys checked in it',
    );
  });

  it('says one row in the singular', () => {
    expect(plan({ keys: keys(200), rowCount: 1 }).text).toBe("the table's 1 row read once (1 row request), 200 keys checked locally");
    expect(plan({ keys: keys(200), rowCount: 10 ** 6, recentRows: 1 }).text).toBe(
      'the 1 row created since the push began read newest first (1 row request)',
    );
  });

  it('always picks a plan of the fewest requests among those it can use', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 3000 }),
        fc.integer({ min: 0, max: 10 ** 7 }),
        fc.option(fc.integer({ min: 0, max: 10 ** 5 }), { nil: undefined }),
        fc.option(fc.integer({ min: 0, max: 10 ** 5 }), { nil: undefined }),
        (count, rowCount, mirrorRequests, recentRows) => {
          const list = keys(count);
          const chosen = chooseLookupPlan({ column: columnOf('email'), keys: list, keyCount: count, rowCount, mirrorRequests, recentRows });
          const q = Math.ceil(count / RULES_PER_QUERY);
          const queries = q * Math.max(1, Math.ceil(Math.min(count, rowCount) / q / 100));
          const costs = [queries, Math.max(1, Math.ceil(rowCount / 100))];
          if (mirrorRequests !== undefined) costs.push(mirrorRequests);
          if (recentRows !== undefined) costs.push(Math.max(1, Math.ceil(recentRows / 100)));
          expect(chosen.requests).toBe(Math.min(...costs));
          if (mirrorRequests === undefined) expect(chosen.kind).not.toBe('mirror');
          if (recentRows === undefined) expect(chosen.kind).not.toBe('recent');
        },
      ),
    );
  });
});
