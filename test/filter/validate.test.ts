import { describe, expect, it } from 'vitest';
import { validateQuery } from '../../src/filter/validate.js';
import {
  ANY_OF_MAX_ITEMS,
  CURSOR_MAX_CHARS,
  FILTER_MAX_DEPTH,
  FILTER_MAX_ENTRIES_PER_GROUP,
  FILTER_VALUE_MAX_CHARS,
  SEARCH_MAX_CHARS,
  type FilterGroup,
  type FilterRule,
  type QueryBody,
} from '../../src/service/index.js';
import { catchFilterError } from './catch-filter-error.js';
import { FILTER_FIELDS as fields } from '../helpers/schemas.js';

const NAME_NULL: FilterRule = { fieldId: 'fld_name', operator: 'null' };
const rules = (n: number): FilterRule[] => Array.from({ length: n }, () => NAME_NULL);
const x = (n: number) => 'x'.repeat(n);

/** A chain of groups `levels` deep, counting the top. */
function nested(levels: number): FilterGroup {
  let group: FilterGroup = { rules: [NAME_NULL] };
  for (let level = 1; level < levels; level += 1) group = { rules: [group] };
  return group;
}

/** `groups` nested groups of `each` rules under the top: total entries = groups + groups * each. */
function spread(groups: number, each: number): FilterGroup {
  return { rules: Array.from({ length: groups }, () => ({ rules: rules(each) })) };
}

const withRule = (rule: FilterRule | Record<string, unknown>): QueryBody => ({ filters: { rules: [rule as FilterRule] } });
const valid = (body: QueryBody) => expect(() => validateQuery(body, fields)).not.toThrow();
const invalid = (body: QueryBody) => catchFilterError(() => validateQuery(body, fields));

describe('validateQuery: size limits at and over the limit', () => {
  it.each<[string, QueryBody, QueryBody, string]>([
    ['nesting', { filters: nested(FILTER_MAX_DEPTH) }, { filters: nested(FILTER_MAX_DEPTH + 1) }, 'nest more than 5 levels'],
    [
      'entries per group',
      { filters: { rules: rules(FILTER_MAX_ENTRIES_PER_GROUP) } },
      { filters: { rules: rules(FILTER_MAX_ENTRIES_PER_GROUP + 1) } },
      'a filter group has 26 entries; the service accepts at most 25 per group',
    ],
    ['entries per nested group', { filters: spread(1, 25) }, { filters: spread(1, 26) }, 'has 26 entries'],
    [
      'entries in total (a nested group counts one)',
      { filters: spread(4, 24) },
      { filters: { rules: [...spread(4, 24).rules, NAME_NULL] } },
      'the filter has 101 entries in all; the service accepts at most 100',
    ],
    [
      'value length',
      withRule({ fieldId: 'fld_name', operator: '=', value: x(FILTER_VALUE_MAX_CHARS) }),
      withRule({ fieldId: 'fld_name', operator: '=', value: x(FILTER_VALUE_MAX_CHARS + 1) }),
      'the value is 1,001 characters long; the service accepts at most 1,000',
    ],
    [
      'list item length',
      withRule({ fieldId: 'fld_name', operator: 'in', value: [x(996)] }),
      withRule({ fieldId: 'fld_name', operator: 'in', value: ['a', x(1001)] }),
      'list item 2 is 1,001 characters long',
    ],
    // a value that is not text is sent as JSON text: the limit counts that text
    [
      'list JSON text length',
      withRule({ fieldId: 'fld_name', operator: 'in', value: [x(496), x(497)] }),
      withRule({ fieldId: 'fld_name', operator: 'in', value: [x(497), x(497)] }),
      'the list as JSON text is 1,001 characters long',
    ],
    [
      'range length',
      withRule({ fieldId: 'fld_signup', operator: 'between', value: { start: '2024-01-01T00:00:00Z', end: '2024-01-02T00:00:00Z' } }),
      withRule({
        fieldId: 'fld_signup',
        operator: 'between',
        value: { start: `2024-01-01T00:00:00.${'1'.repeat(990)}Z`, end: '2024-01-02T00:00:00Z' },
      }),
      'the range start is 1,011 characters long',
    ],
    [
      'containsAnyOf entries',
      withRule({ fieldId: 'fld_name', operator: 'containsAnyOf', value: Array(ANY_OF_MAX_ITEMS).fill('a') }),
      withRule({ fieldId: 'fld_name', operator: 'containsAnyOf', value: Array(ANY_OF_MAX_ITEMS + 1).fill('a') }),
      'containsAnyOf takes at most 20 entries and this list has 21: the service would ignore the last 1',
    ],
    [
      'doesNotContainAnyOf entries',
      withRule({ fieldId: 'fld_site', operator: 'doesNotContainAnyOf', value: Array(20).fill('a') }),
      withRule({ fieldId: 'fld_site', operator: 'doesNotContainAnyOf', value: Array(23).fill('a') }),
      'the service would ignore the last 3',
    ],
    [
      'search text q',
      { q: x(SEARCH_MAX_CHARS) },
      { q: x(SEARCH_MAX_CHARS + 1) },
      'the search text is 101 characters long; the service accepts at most 100 characters',
    ],
    ['search text query', { query: x(100) }, { query: x(101) }, 'the search text is 101 characters long'],
    ['cursor', { cursor: x(CURSOR_MAX_CHARS) }, { cursor: x(CURSOR_MAX_CHARS + 1) }, 'at most 500 characters'],
    ['limit above', { limit: 100 }, { limit: 101 }, 'limit must be a whole number from 1 to 100, got 101'],
    ['limit below', { limit: 1 }, { limit: 0 }, 'got 0'],
    ['limit not whole', { limit: 50 }, { limit: 2.5 }, 'got 2.5'],
  ])('%s', (_name, atLimit, overLimit, message) => {
    valid(atLimit);
    expect(invalid(overLimit).problem).toContain(message);
  });

  it('in/notIn lists have no entry-count limit, only the JSON-text one', () => {
    valid(withRule({ fieldId: 'fld_name', operator: 'in', value: Array(199).fill('a') }));
    expect(invalid(withRule({ fieldId: 'fld_name', operator: 'in', value: Array(500).fill('a') })).message).toContain('as JSON text');
  });

  it('names the path of the offending part', () => {
    const body: QueryBody = {
      filters: { rules: [NAME_NULL, { combinator: 'or', rules: [NAME_NULL, { fieldId: 'fld_age', operator: 'contains', value: '1' }] }] },
    };
    expect(invalid(body).message).toMatch(/^filters\.rules\[1\]\.rules\[1\]\.operator: column "Age"/);
  });

  it('suggests splitting an over-long containsAnyOf with or', () => {
    expect(invalid(withRule({ fieldId: 'fld_name', operator: 'containsAnyOf', value: Array(21).fill('a') })).hint).toContain(
      'joined with or',
    );
  });
});

describe('validateQuery: value shape by operator', () => {
  it.each<[string, Record<string, unknown>]>([
    ['text', { fieldId: 'fld_name', operator: '=', value: 'x' }],
    ['number', { fieldId: 'fld_age', operator: '>=', value: 3 }],
    ['boolean', { fieldId: 'fld_active', operator: '!=', value: false }],
    ['text on a number column (the service takes text, number or true/false)', { fieldId: 'fld_age', operator: '=', value: '3' }],
    ['empty text', { fieldId: 'fld_name', operator: 'contains', value: '' }],
    ['list of strings', { fieldId: 'fld_stage', operator: 'notIn', value: ['a', 'b'] }],
    ['empty list', { fieldId: 'fld_tags', operator: 'in', value: [] }],
    ['date preset', { fieldId: 'fld_signup', operator: 'isDatePreset', value: 'last365Days' }],
    [
      'between with offsets',
      { fieldId: 'fld_signup', operator: 'between', value: { start: '2024-01-01T00:00Z', end: '2024-12-31T23:59:59.999+05:30' } },
    ],
    ['valueless', { fieldId: 'fld_meta', operator: 'notNull' }],
  ])('accepts %s', (_name, rule) => {
    valid(withRule(rule));
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['a value on null', { fieldId: 'fld_name', operator: 'null', value: 'x' }, 'null takes no value'],
    ['a value on hasError', { fieldId: 'fld_enrich', operator: 'hasError', value: true }, 'hasError takes no value'],
    ['a value on isFound', { fieldId: 'fld_hook', operator: 'isFound', value: 'x' }, 'isFound takes no value'],
    ['no value on =', { fieldId: 'fld_name', operator: '=' }, '= needs a value'],
    ['no value on in', { fieldId: 'fld_name', operator: 'in' }, 'in needs a value'],
    ['a list on =', { fieldId: 'fld_name', operator: '=', value: ['a'] }, '= takes a single text, number or true/false value'],
    ['an object on contains', { fieldId: 'fld_name', operator: 'contains', value: { start: 'a', end: 'b' } }, 'contains takes a single'],
    ['null on =', { fieldId: 'fld_name', operator: '=', value: null }, '= takes a single'],
    ['a string on in', { fieldId: 'fld_name', operator: 'in', value: 'a' }, 'in takes a list of strings'],
    [
      'numbers in containsAnyOf',
      { fieldId: 'fld_name', operator: 'containsAnyOf', value: [1, 2] },
      'containsAnyOf takes a list of strings',
    ],
    [
      'an unknown date preset',
      { fieldId: 'fld_signup', operator: 'isDatePreset', value: 'someday' },
      'isDatePreset takes one of today, tomorrow',
    ],
    ['a date preset in the wrong case', { fieldId: 'fld_signup', operator: 'isDatePreset', value: 'Today' }, 'isDatePreset takes one of'],
    [
      'between with a string',
      { fieldId: 'fld_signup', operator: 'between', value: '2024-01-01..2024-02-01' },
      'between takes {start, end}',
    ],
    [
      'between without end',
      { fieldId: 'fld_signup', operator: 'between', value: { start: '2024-01-01T00:00:00Z' } },
      'between takes {start, end}',
    ],
    [
      'between with another member',
      { fieldId: 'fld_signup', operator: 'between', value: { start: '2024-01-01T00:00:00Z', end: '2024-01-02T00:00:00Z', step: 1 } },
      'between takes {start, end}',
    ],
    [
      'between with a date only',
      { fieldId: 'fld_signup', operator: 'between', value: { start: '2024-01-01', end: '2024-01-02T00:00:00Z' } },
      'the range start "2024-01-01" is not an ISO 8601 date-time',
    ],
    [
      'between without time zone',
      { fieldId: 'fld_signup', operator: 'between', value: { start: '2024-01-01T00:00:00Z', end: '2024-01-02T00:00:00' } },
      'the range end "2024-01-02T00:00:00" is not',
    ],
    [
      'between with an impossible date',
      { fieldId: 'fld_signup', operator: 'between', value: { start: '2023-02-29T00:00:00Z', end: '2024-01-02T00:00:00Z' } },
      'the range start "2023-02-29T00:00:00Z" is not',
    ],
    [
      'between with an impossible time',
      { fieldId: 'fld_signup', operator: 'between', value: { start: '2024-01-01T24:00:00Z', end: '2024-01-02T00:00:00Z' } },
      'is not an ISO 8601',
    ],
    ['an unknown fieldId', { fieldId: 'Name', operator: 'null' }, 'unknown fieldId "Name"'],
    ['an unknown operator', { fieldId: 'fld_name', operator: 'like', value: 'x' }, 'unknown operator "like"'],
  ])('rejects %s', (_name, rule, message) => {
    expect(invalid(withRule(rule)).problem).toContain(message);
  });

  it.each<[string, QueryBody, string]>([
    ['an unknown body member', { filter: {} } as QueryBody, 'the query body has no member "filter"'],
    ['a bad combinator', { filters: { combinator: 'xor' as 'and', rules: [] } }, 'combinator must be "and" or "or"'],
    ['a group without rules', { filters: {} as FilterGroup }, 'a filter group needs "rules"'],
    ['a rule that is not an object', { filters: { rules: [null as unknown as FilterRule] } }, 'expected a rule or a group'],
  ])('rejects %s', (_name, body, message) => {
    expect(invalid(body).problem).toContain(message);
  });

  it('accepts an empty body and an empty filter group', () => {
    valid({});
    valid({ filters: { rules: [] } });
  });
});
