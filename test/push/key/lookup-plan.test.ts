import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { keyColumn, type KeyColumn } from '../../../src/push/key/record-key.js';
import { packKeyQueries, RULES_PER_QUERY, chooseLookupPlan, type PlanInput } from '../../../src/push/key/key-lookups.js';
import {
  type ColumnType,
  ANY_OF_MAX_ITEMS,
  FILTER_MAX_DEPTH,
  FILTER_MAX_ENTRIES_PER_GROUP,
  FILTER_MAX_ENTRIES_TOTAL,
  FILTER_VALUE_MAX_CHARS,
  isFilterGroup,
  type Field,
  type FilterGroup,
  type FilterRule,
} from '../../../src/service/index.js';
import { validateQuery } from '../../../src/filter/validate.js';

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

const fieldOf = (type: ColumnType): Field => ({ id: 'fKey', name: 'key', label: 'Key', type, options: null, isSystem: false });
const queryColumnOf = (type: ColumnType): KeyColumn => keyColumn([fieldOf(type)], 'fKey');

/** Every rule of a group, in order, however deep. */
function rulesOf(group: FilterGroup): FilterRule[] {
  return group.rules.flatMap((entry) => (isFilterGroup(entry) ? rulesOf(entry) : [entry]));
}

/** Levels of groups, counting the top one. */
function depthOf(group: FilterGroup): number {
  return 1 + Math.max(0, ...group.rules.map((entry) => (isFilterGroup(entry) ? depthOf(entry) : 0)));
}

/** Entries of every group together (a nested group counts as one in its parent). */
function entriesOf(group: FilterGroup): number {
  return group.rules.reduce((sum, entry) => sum + (isFilterGroup(entry) ? entriesOf(entry) : 0), group.rules.length);
}

/** The keys a rule stands for, as the lookup sent them. */
const valuesOf = (rule: FilterRule): Array<string | number> => (Array.isArray(rule.value) ? rule.value : [rule.value as string | number]);

/** A key character: anything the input can hold, with quotes and backslashes (escaped in JSON text) often. */
const keyUnit = fc.oneof(
  fc.constantFrom('"', '\\', "'", '`'),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }),
  fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }),
);
/**
 * Keys of 1–200 code points, as recordKey lets them through. Keys whose JSON text alone is over the
 * value limit (nearly all control characters) are left to their own test below.
 */
const fits = (key: string): boolean => [...key].length <= 200 && JSON.stringify([key]).length <= FILTER_VALUE_MAX_CHARS;
const textKey = fc
  .oneof(
    fc.string({ unit: keyUnit, minLength: 1, maxLength: 200 }),
    fc.string({ unit: keyUnit, minLength: 1, maxLength: 200, size: 'max' }),
  )
  .filter(fits);
const textKeys = fc.uniqueArray(textKey, { minLength: 1, maxLength: 600, size: 'large' });
/** Enough long keys to fill several `in` queries (97 lists of about four 200-character keys each). */
const manyLongKeys = fc.uniqueArray(fc.string({ unit: keyUnit, minLength: 150, maxLength: 200 }).filter(fits), {
  minLength: 600,
  maxLength: 1500,
});
const numberKeys = fc.uniqueArray(
  fc.oneof(
    fc.integer().map(String),
    fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
    fc.integer({ min: 0, max: 10 ** 6 }).map((n) => String(n / 100)),
  ),
  { minLength: 1, maxLength: 300, size: 'large' },
);

/** Checks one packing against the service's limits (with the project's own validation) and the keys it must hold. */
function checkPacking(column: KeyColumn, keys: readonly string[], operator: string): FilterGroup[] {
  const queries = packKeyQueries(column, keys);
  for (const query of queries) {
    expect(() => validateQuery({ limit: 100, filters: query }, [column.field])).not.toThrow();
    expect(depthOf(query)).toBeLessThanOrEqual(FILTER_MAX_DEPTH);
    expect(entriesOf(query)).toBeLessThanOrEqual(FILTER_MAX_ENTRIES_TOTAL);
    expect(query.rules.length).toBeLessThanOrEqual(FILTER_MAX_ENTRIES_PER_GROUP);
    expect(query.combinator).toBe('or');
    for (const rule of rulesOf(query)) {
      expect(rule.operator).toBe(operator);
      expect(rule.fieldId).toBe('fKey');
      if (Array.isArray(rule.value)) expect(JSON.stringify(rule.value).length).toBeLessThanOrEqual(FILTER_VALUE_MAX_CHARS);
    }
  }
  // every key in exactly one rule, in input order
  const sent = queries.flatMap(rulesOf).flatMap(valuesOf);
  expect(sent.map(String)).toEqual(keys.map((key) => (column.field.type === 'number' ? String(Number(key)) : key)));
  // every query but the last is full
  for (const query of queries.slice(0, -1)) expect(rulesOf(query)).toHaveLength(RULES_PER_QUERY);
  return queries;
}

describe('packKeyQueries', () => {
  it.each<[ColumnType, string]>([
    ['text', 'in'],
    ['select', 'in'],
    ['url', 'containsAnyOf'],
    ['image', 'containsAnyOf'],
    ['formula', 'containsAnyOf'],
    ['email', '='],
    ['phone_number', '='],
  ])('%s keys: every query passes the filter validation and holds each key once (%s)', (type, operator) => {
    const column = queryColumnOf(type);
    fc.assert(
      fc.property(textKeys, (keys) => {
        checkPacking(column, keys, operator);
      }),
      { numRuns: 10 },
    );
  });

  it.each<[ColumnType, string]>([
    ['text', 'in'],
    ['url', 'containsAnyOf'],
  ])('%s: many long keys fill several queries, each within the limits', (type, operator) => {
    const column = queryColumnOf(type);
    fc.assert(
      fc.property(manyLongKeys, (keys) => {
        expect(checkPacking(column, keys, operator).length).toBeGreaterThan(1);
      }),
      { numRuns: 2 },
    );
  });

  it('number keys: `=` rules whose values are numbers', () => {
    const column = queryColumnOf('number');
    fc.assert(
      fc.property(numberKeys, (keys) => {
        const queries = checkPacking(column, keys, '=');
        const values = queries.flatMap(rulesOf).map((rule) => rule.value);
        expect(values.every((value) => typeof value === 'number')).toBe(true);
        expect(values).toEqual(keys.map(Number));
      }),
      { numRuns: 100 },
    );
    expect(packKeyQueries(column, ['1.5', '-20', '1e21'])[0]!.rules).toEqual([
      { fieldId: 'fKey', operator: '=', value: 1.5 },
      { fieldId: 'fKey', operator: '=', value: -20 },
      { fieldId: 'fKey', operator: '=', value: 1e21 },
    ]);
  });

  it('packs `in` lists as full as the 1,000-character limit allows', () => {
    fc.assert(
      fc.property(textKeys, (keys) => {
        const rules = packKeyQueries(queryColumnOf('text'), keys).flatMap(rulesOf);
        for (const [i, rule] of rules.slice(0, -1).entries()) {
          // the next rule's first key would not have fitted in this list
          const next = (rules[i + 1]!.value as string[])[0]!;
          expect(JSON.stringify([...(rule.value as string[]), next]).length).toBeGreaterThan(FILTER_VALUE_MAX_CHARS);
        }
      }),
      { numRuns: 10 },
    );
  });

  it('puts at most 20 keys in a containsAnyOf list (the service ignores more), and fills it', () => {
    const keys = Array.from({ length: 45 }, (_, i) => `https://k${i}.example`);
    const rules = packKeyQueries(queryColumnOf('url'), keys).flatMap(rulesOf);
    expect(rules.map((rule) => (rule.value as string[]).length)).toEqual([ANY_OF_MAX_ITEMS, ANY_OF_MAX_ITEMS, 5]);
  });

  it('fills a query with RULES_PER_QUERY rules: 22 beside 3 nested groups of 25 (25 entries at the top, 100 in all)', () => {
    expect(RULES_PER_QUERY).toBe(97);
    const column = queryColumnOf('email');
    const keys = (count: number): string[] => Array.from({ length: count }, (_, i) => `k${i}@x.example`);

    const [full, ...none] = packKeyQueries(column, keys(RULES_PER_QUERY));
    expect(none).toEqual([]);
    expect(full!.rules).toHaveLength(FILTER_MAX_ENTRIES_PER_GROUP);
    expect(full!.rules.slice(0, 22).every((entry) => !isFilterGroup(entry))).toBe(true);
    expect(full!.rules.slice(22).map((entry) => (isFilterGroup(entry) ? entry.rules.length : 0))).toEqual([25, 25, 25]);
    expect(entriesOf(full!)).toBe(FILTER_MAX_ENTRIES_TOTAL);
    expect(() => validateQuery({ filters: full! }, [column.field])).not.toThrow();

    const over = packKeyQueries(column, keys(RULES_PER_QUERY + 1));
    expect(over.map((query) => rulesOf(query).length)).toEqual([RULES_PER_QUERY, 1]);
    expect(over[1]).toEqual({ combinator: 'or', rules: [{ fieldId: 'fKey', operator: '=', value: `k${RULES_PER_QUERY}@x.example` }] });

    // 25 rules or fewer stay in one flat group
    const flat = packKeyQueries(column, keys(25))[0]!;
    expect(flat.rules.every((entry) => !isFilterGroup(entry))).toBe(true);
    const nested = packKeyQueries(column, keys(26))[0]!;
    expect(nested.rules.filter(isFilterGroup)).toHaveLength(1);
    expect(rulesOf(nested)).toHaveLength(26);
  });

  it('makes no query for no keys', () => {
    expect(packKeyQueries(queryColumnOf('text'), [])).toEqual([]);
    expect(packKeyQueries(queryColumnOf('email'), [])).toEqual([]);
  });

  // A key of 200 code points that JSON escapes (control characters: 6 characters each as \u0001) is
  // accepted by recordKey, but as an `in` list it would be 1,204 characters of JSON text.
  it('keeps a rule within 1,000 characters of JSON text for a 200-character key of control characters (an `=` rule of its own)', () => {
    const key = '\u0001'.repeat(200);
    const column = queryColumnOf('text');
    const queries = packKeyQueries(column, [key, 'short']);
    for (const query of queries) expect(() => validateQuery({ filters: query }, [column.field])).not.toThrow();
    expect(queries[0]!.rules).toContainEqual({ fieldId: column.field.id, operator: '=', value: key });
  });
});
