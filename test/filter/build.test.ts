import { describe, expect, it } from 'vitest';
import { buildFilters } from '../../src/filter/build.js';
import type { FilterGroup, FilterRule, FilterValue } from '../../src/service/index.js';

import { catchFilterError } from './catch-filter-error.js';
import { FILTER_FIELDS as fields } from '../helpers/schemas.js';

const build = (where: string[], extra: { any?: boolean; filterJson?: string } = {}) => buildFilters({ where, fields, ...extra });

/** The one rule a single-condition --where builds. */
function rule(where: string): FilterRule {
  const group = build([where]);
  expect(group?.rules).toHaveLength(1);
  return group?.rules[0] as FilterRule;
}

const AGE: FilterRule = { fieldId: 'fld_age', operator: '>', value: 1 };
const NAME: FilterRule = { fieldId: 'fld_name', operator: '=', value: 'x' };
const ACTIVE: FilterRule = { fieldId: 'fld_active', operator: '=', value: true };

describe('buildFilters: values typed by column', () => {
  it.each<[string, string, FilterValue | undefined]>([
    // number
    ['Age > 30', 'fld_age', 30],
    ['Age <= -2.5', 'fld_age', -2.5],
    ['age = "42"', 'fld_age', 42],
    ['Age != 1e3', 'fld_age', 1000],
    // boolean
    ['Active = true', 'fld_active', true],
    ['Active != FALSE', 'fld_active', false],
    ['is_active = "true"', 'fld_active', true],
    // date
    ['"Signed up" > 2024-05-01', 'fld_signup', '2024-05-01T00:00:00.000Z'],
    ['"Signed up" < 2024-05-01T10:00:00+02:00', 'fld_signup', '2024-05-01T10:00:00+02:00'],
    ['"Signed up" = "2024-02-29"', 'fld_signup', '2024-02-29T00:00:00.000Z'],
    ['Signed up > 2024-05-01', 'fld_signup', '2024-05-01T00:00:00.000Z'],
    ['signup_date isDatePreset LAST7DAYS', 'fld_signup', 'last7Days'],
    ['"Created at" isDatePreset thisQuarter', 'fld_created', 'thisQuarter'],
    // text-like columns keep the text as written
    ['Name = 007', 'fld_name', '007'],
    ['Name contains true', 'fld_name', 'true'],
    ['Name startsWith "  padded "', 'fld_name', '  padded '],
    ['Phone startsWith +44', 'fld_phone', '+44'],
    ['Website contains example.com/path', 'fld_site', 'example.com/path'],
    ['Logo doesNotContain .png', 'fld_logo', '.png'],
    ['Score != 5', 'fld_score', '5'],
    ['work_email = ada@example.com', 'fld_work_email', 'ada@example.com'],
    ['Owner = usr_12', 'fld_owner', 'usr_12'],
    ['"Enrich company" contains Acme', 'fld_enrich', 'Acme'],
    ['Payload startsWith "{"', 'fld_hook', '{'],
    // select: option label or value → the option value
    ['Stage = Customer', 'fld_stage', 'opt_customer'],
    ['Stage != opt_hold', 'fld_stage', 'opt_hold'],
    ['Stage = "On hold"', 'fld_stage', 'opt_hold'],
    ['Stage = Lead', 'fld_stage', 'Lead'],
    ['Stage = Churned', 'fld_stage', 'Lead'],
    ['Stage in [Customer, "On hold", opt_lead]', 'fld_stage', ['opt_customer', 'opt_hold', 'opt_lead']],
    ['Tags in [VIP, tag_partner]', 'fld_tags', ['tag_vip', 'tag_partner']],
    ['Tags notIn Partner', 'fld_tags', ['tag_partner']],
    // lists of strings
    ['Name in [1, true, x, "a b"]', 'fld_name', ['1', 'true', 'x', 'a b']],
    ['Name notIn []', 'fld_name', []],
    ['Name containsAnyOf [Ada, Grace]', 'fld_name', ['Ada', 'Grace']],
    ['Website doesNotContainAnyOf spam', 'fld_site', ['spam']],
    // between
    [
      '"Signed up" between 2024-01-01..2024-01-31T23:59:59Z',
      'fld_signup',
      { start: '2024-01-01T00:00:00.000Z', end: '2024-01-31T23:59:59Z' },
    ],
    // a date-only end includes its whole day
    ['"Signed up" between 2024-01-01..2024-01-31', 'fld_signup', { start: '2024-01-01T00:00:00.000Z', end: '2024-01-31T23:59:59.999Z' }],
    // no value
    ['Metadata null', 'fld_meta', undefined],
    ['Notes notNull', 'fld_notes', undefined],
    ['"Enrich company" hasError', 'fld_enrich', undefined],
    ['Payload isFound', 'fld_hook', undefined],
    ['Payload isNotFound', 'fld_hook', undefined],
    ['Age hasNotRun', 'fld_age', undefined],
    ['Name runConditionNotMet', 'fld_name', undefined],
    ['Tags hasNoError', 'fld_tags', undefined],
  ])('%s', (where, fieldId, value) => {
    const built = rule(where);
    expect(built.fieldId).toBe(fieldId);
    if (value === undefined) expect(built).not.toHaveProperty('value');
    else expect(built.value).toStrictEqual(value);
  });

  it('takes an unquoted label of several words only when it is one column exactly', () => {
    const error = catchFilterError(() => build(['Signed Up > 2024-05-01']));
    expect(error.message).toBe(
      ['--where: unknown column "Signed Up" (at character 1):', '  Signed Up > 2024-05-01', '  ^^^^^^^^^'].join('\n'),
    );
    expect(error.hint).toContain('did you mean "Signed up"?');
  });

  it('writes the operator in the service spelling', () => {
    expect(rule('Name DOESNOTCONTAIN x').operator).toBe('doesNotContain');
  });
});

describe('buildFilters: combining', () => {
  it.each<[string, string[], { any?: boolean; filterJson?: string }, FilterGroup | undefined]>([
    ['nothing to filter', [], {}, undefined],
    ['an empty --filter group', [], { filterJson: '{"rules": []}' }, undefined],
    ['one condition', ['Age > 1'], {}, { combinator: 'and', rules: [AGE] }],
    ['one expression keeps its group', ['Age > 1 or Name = x'], {}, { combinator: 'or', rules: [AGE, NAME] }],
    ['several --where with and', ['Age > 1', 'Name = x'], {}, { combinator: 'and', rules: [AGE, NAME] }],
    ['several --where with --any', ['Age > 1', 'Name = x'], { any: true }, { combinator: 'or', rules: [AGE, NAME] }],
    ['an and-expression joins the and', ['Age > 1 and Name = x', 'Active = true'], {}, { combinator: 'and', rules: [AGE, NAME, ACTIVE] }],
    [
      'an or-expression stays a group under and',
      ['Age > 1 or Name = x', 'Active = true'],
      {},
      { combinator: 'and', rules: [{ combinator: 'or', rules: [AGE, NAME] }, ACTIVE] },
    ],
    [
      'an and-expression stays a group under --any',
      ['Age > 1 and Name = x', 'Active = true'],
      { any: true },
      { combinator: 'or', rules: [{ combinator: 'and', rules: [AGE, NAME] }, ACTIVE] },
    ],
    [
      'parentheses keep their group',
      ['(Age > 1 and Name = x) and Active = true'],
      {},
      { combinator: 'and', rules: [{ combinator: 'and', rules: [AGE, NAME] }, ACTIVE] },
    ],
    [
      '--filter alone, labels and names resolved, select label → value',
      [],
      {
        filterJson:
          '{"combinator": "or", "rules": [{"fieldId": "Age", "operator": ">", "value": 1}, {"fieldId": "stage", "operator": "in", "value": ["Customer"]}]}',
      },
      { combinator: 'or', rules: [AGE, { fieldId: 'fld_stage', operator: 'in', value: ['opt_customer'] }] },
    ],
    [
      '--filter and --where joined with and',
      ['Age > 1'],
      { filterJson: '{"rules": [{"fieldId": "Name", "operator": "=", "value": "x"}]}' },
      { combinator: 'and', rules: [AGE, NAME] },
    ],
    [
      '--filter with or stays a group beside --where',
      ['Active = true'],
      {
        filterJson:
          '{"combinator": "or", "rules": [{"fieldId": "fld_age", "operator": ">", "value": 1}, {"fieldId": "Name", "operator": "=", "value": "x"}]}',
      },
      { combinator: 'and', rules: [ACTIVE, { combinator: 'or', rules: [AGE, NAME] }] },
    ],
    [
      'an empty --filter group adds nothing',
      ['Age > 1 or Name = x'],
      { filterJson: '{"rules": []}' },
      { combinator: 'or', rules: [AGE, NAME] },
    ],
    [
      '--any --where with --filter',
      ['Age > 1', 'Name = x'],
      { any: true, filterJson: '{"rules": [{"fieldId": "Active", "operator": "=", "value": true}]}' },
      { combinator: 'and', rules: [{ combinator: 'or', rules: [AGE, NAME] }, ACTIVE] },
    ],
  ])('%s', (_name, where, extra, expected) => {
    expect(build(where, extra)).toStrictEqual(expected);
  });

  it('keeps groups nested when splicing them would pass the per-group limit', () => {
    const twenty = Array.from({ length: 20 }, (_, i) => `Age > ${i}`).join(' and ');
    const built = build([twenty, twenty]);
    expect(built?.rules).toHaveLength(2);
    expect(built?.rules.every((entry) => 'rules' in entry && entry.rules.length === 20)).toBe(true);
  });
});

describe('buildFilters: --filter JSON typed and resolved like --where', () => {
  it.each<[string, FilterRule]>([
    ['{"fieldId": "Age", "operator": ">", "value": "30"}', { fieldId: 'fld_age', operator: '>', value: 30 }],
    [
      '{"fieldId": "Signed up", "operator": "between", "value": {"start": "2024-01-01", "end": "2024-02-01T00:00:00Z"}}',
      { fieldId: 'fld_signup', operator: 'between', value: { start: '2024-01-01T00:00:00.000Z', end: '2024-02-01T00:00:00Z' } },
    ],
    ['{"fieldId": "Tags", "operator": "in", "value": ["VIP"]}', { fieldId: 'fld_tags', operator: 'in', value: ['tag_vip'] }],
    ['{"fieldId": "Name", "operator": "CONTAINS", "value": 5}', { fieldId: 'fld_name', operator: 'contains', value: '5' }],
    ['{"fieldId": "Name", "operator": "null", "value": null}', { fieldId: 'fld_name', operator: 'null' }],
    ['{"fieldId": "fld_email", "operator": "notNull"}', { fieldId: 'fld_email', operator: 'notNull' }],
  ])('%s', (json, expected) => {
    expect(build([], { filterJson: `{"rules": [${json}]}` })?.rules).toStrictEqual([expected]);
  });

  it('keeps nested groups and resolves inside them', () => {
    const json = '{"rules": [{"combinator": "OR", "rules": [{"fieldId": "age", "operator": "<", "value": 3}]}]}';
    expect(build([], { filterJson: json })).toStrictEqual({
      rules: [{ combinator: 'or', rules: [{ fieldId: 'fld_age', operator: '<', value: 3 }] }],
    });
  });
});
