import { describe, expect, it } from 'vitest';
import { buildFilters } from '../../src/filter/build.js';

import { catchFilterError } from './catch-filter-error.js';
import { FILTER_FIELDS as fields } from '../helpers/schemas.js';

// buildFilters refuses what it cannot build: --where errors point at the text, --filter errors name the JSON path.

const build = (where: string[], extra: { any?: boolean; filterJson?: string } = {}) => buildFilters({ where, fields, ...extra });

describe('buildFilters: errors point at the --where text', () => {
  it.each<[string, number, string]>([
    ['Nmae = x', 0, 'unknown column "Nmae"'],
    ['Email contains x', 0, 'column label "Email" is shared by 2 columns: fld_email (name: email), fld_work_email (name: work_email)'],
    [
      'Age contains 5',
      4,
      'column "Age" (fld_age) is of type number, which does not accept contains; it accepts =, !=, >, >=, <, <=, null, notNull, and hasError, hasNoError, hasNotRun, runConditionNotMet if the column runs an action or AI',
    ],
    [
      'Tags = VIP',
      5,
      'column "Tags" (fld_tags) is of type multi_select, which does not accept =; it accepts in, notIn, null, notNull, and hasError, hasNoError, hasNotRun, runConditionNotMet if the column runs an action or AI',
    ],
    [
      'Payload between a..b',
      8,
      'column "Payload" (fld_hook) is of type webhook, which does not accept between; it accepts =, !=, contains, doesNotContain, startsWith, null, notNull, hasError, hasNoError, hasNotRun, runConditionNotMet, isFound, isNotFound',
    ],
    [
      'Metadata = x',
      9,
      'column "Metadata" (fld_meta) is of type object, which does not accept =; it accepts null, notNull, and hasError, hasNoError, hasNotRun, runConditionNotMet if the column runs an action or AI',
    ],
    ['Name isFound', 5, 'which does not accept isFound'],
    ['Age > abc', 6, 'column "Age" (fld_age) holds numbers, and "abc" is not a number'],
    ['Age > true', 6, '"true" is not a number'],
    ['Age = 1e999', 6, '"1e999" is not a number'],
    ['Active = yes', 9, 'column "Active" (fld_active) holds true/false, and "yes" is neither'],
    ['"Signed up" > 2024-02-30', 14, 'the value "2024-02-30" is not a date or a date-time with a time zone'],
    ['"Signed up" > 2024-05-01T10:00:00', 14, 'the value "2024-05-01T10:00:00" is not a date'],
    ['"Signed up" > today', 14, 'the value "today" is not a date'],
    ['"Signed up" between 2024-01-01', 20, 'between takes a range START..END'],
    ['"Signed up" between 2024-01-01..soon', 20, 'the range end "soon" is not a date'],
    ['"Signed up" isDatePreset someday', 25, 'unknown date preset "someday"'],
    ['Stage = Prospect', 8, 'column "Stage" (fld_stage) has no option "Prospect"'],
    ['Stage = [Lead]', 8, '= takes one value, not a list'],
    ['Name = a..b', 7, 'a range START..END only goes with between'],
    ['Name in a..b', 8, 'a range START..END only goes with between'],
    [
      `Name containsAnyOf [${Array.from({ length: 21 }, (_, i) => `k${i}`).join(', ')}]`,
      19,
      'containsAnyOf takes at most 20 entries and this list has 21: the service would ignore the last 1',
    ],
    [`Name = ${'x'.repeat(1001)}`, 7, 'the value is 1,001 characters long; the service accepts at most 1,000'],
    [`Name in [a, "${'x'.repeat(1001)}"]`, 8, 'list item 2 is 1,001 characters long'],
  ])('%s', (where, position, message) => {
    const error = catchFilterError(() => build([where]));
    expect(error.problem).toContain(message);
    expect(error.location).toMatchObject({ source: '--where', expression: where, position });
  });

  it.each([
    ['Stage = Prospect', '"Lead" (opt_lead), "Customer" (opt_customer), "On hold" (opt_hold), "Churned" (Lead)'],
    ['"Signed up" isDatePreset lastweek2', 'did you mean "lastWeek"?'],
    ['Name doesNotContainAnyOf [' + Array.from({ length: 25 }, (_, i) => `k${i}`).join(',') + ']', 'joined with and'],
  ])('hints: %s', (where, hint) => {
    expect(catchFilterError(() => build([where])).hint).toContain(hint);
  });

  it('underlines the offending token and names the --where among several', () => {
    const error = catchFilterError(() => build(['Age > 1', 'Age contains "a b"']));
    expect(error.message).toMatch(
      /^--where #2: column "Age" \(fld_age\) is of type number, .* \(at character 5\):\n {2}Age contains "a b"\n {6}\^{8}$/,
    );
  });

  it('names the --where of a parse error among several', () => {
    const error = catchFilterError(() => build(['Age > 1', 'Age >']));
    expect(error.location).toMatchObject({ source: '--where #2', position: 5 });
  });
});

describe('buildFilters: --filter errors name the JSON path', () => {
  it.each<[string, string | undefined, string]>([
    ['', undefined, 'not valid JSON'],
    ['{"rules": [', undefined, 'not valid JSON'],
    ['[]', undefined, 'expected a filter group'],
    ['{"filters": {"rules": []}}', undefined, 'this is a whole request body'],
    ['{"rules": [], "combinater": "or"}', 'combinater', 'unknown member "combinater"'],
    ['{"combinator": "xor", "rules": []}', 'combinator', 'combinator must be "and" or "or", got "xor"'],
    ['{"rules": {}}', 'rules', 'a filter group needs "rules"'],
    ['{"rules": [42]}', 'rules[0]', 'expected a rule'],
    ['{"rules": [{"operator": "null"}]}', 'rules[0].fieldId', 'a rule needs "fieldId"'],
    ['{"rules": [{"field": "Age", "operator": "null"}]}', 'rules[0].field', 'unknown member "field"'],
    ['{"rules": [{"fieldId": "Nope", "operator": "null"}]}', 'rules[0].fieldId', 'unknown column "Nope"'],
    ['{"rules": [{"fieldId": "Email", "operator": "null"}]}', 'rules[0].fieldId', 'column label "Email" is shared'],
    ['{"rules": [{"fieldId": "Age"}]}', 'rules[0].operator', 'a rule needs "operator"'],
    ['{"rules": [{"fieldId": "Age", "operator": "gt", "value": 1}]}', 'rules[0].operator', 'unknown operator "gt"'],
    ['{"rules": [{"fieldId": "Age", "operator": "contains", "value": "1"}]}', 'rules[0].operator', 'does not accept contains'],
    ['{"rules": [{"fieldId": "Age", "operator": "=", "value": null}]}', 'rules[0].value', '= needs a value'],
    ['{"rules": [{"fieldId": "Age", "operator": "null", "value": 1}]}', 'rules[0].value', 'null takes no value'],
    ['{"rules": [{"fieldId": "Age", "operator": "=", "value": {"a": 1}}]}', 'rules[0].value', 'an object value must be a range'],
    [
      '{"rules": [{"fieldId": "Name", "operator": "in", "value": [["a"]]}]}',
      'rules[0].value[0]',
      'expected a string, number or true/false, got an array',
    ],
    ['{"rules": [{"fieldId": "Age", "operator": "=", "value": "x"}]}', 'rules[0].value', 'is not a number'],
    [
      '{"rules": [{"rules": [{"rules": [{"rules": [{"rules": [{"rules": []}]}]}]}]}]}',
      'rules[0].rules[0].rules[0].rules[0].rules[0]',
      'filter groups nest more than 5 levels deep',
    ],
  ])('%s', (json, path, message) => {
    const error = catchFilterError(() => build([], { filterJson: json }));
    expect(error.problem).toContain(message);
    expect(error.location).toStrictEqual(path === undefined ? { source: '--filter' } : { source: '--filter', path });
  });
});
