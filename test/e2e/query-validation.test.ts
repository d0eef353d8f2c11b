import { afterAll, describe, expect } from 'vitest';
import { test as it } from '../helpers/emulator-fixture.js';
import { emulatorRequests } from './read-support.js';
import { spawnedHarness } from './export-support.js';
import { schemaOf, tableNamed } from './rows-support.js';

// Every check `tds query` makes before reading rows: each problem exits 2 with a message naming it,
// and this emulator never sees a single row request (only table and schema reads).

const { emulator, tds } = spawnedHarness();
afterAll(async () => {
  const log = await emulatorRequests(emulator);
  // The log holds this file's table and schema reads, so that it holds no row read means something.
  expect(log.filter((entry) => entry.path.includes('/schema'))).not.toEqual([]);
  expect(log.filter((entry) => entry.path.includes('/rows'))).toEqual([]);
});

const many = (count: number, make: (i: number) => string): string => Array.from({ length: count }, (_, i) => make(i)).join(', ');

describe.concurrent('tds query: validation before any row request', () => {
  it.each([
    [
      'an operator the column type does not accept',
      ['--where', 'Stage > 3'],
      /column "Stage" \(\S+\) is of type select, which does not accept >; it accepts =, !=, in, notIn, null, notNull/,
    ],
    [
      'a label shared by two columns',
      ['--where', 'Email = "a@b.example"'],
      /column label "Email" is shared by 2 columns: \S+ \(name: email\), \S+ \(name: email_2\)/,
    ],
    ['an unknown column', ['--where', 'Nmae = x'], /unknown column "Nmae"/],
    ['a syntax error, shown at its place', ['--where', 'Name = "open'], /at (character \d+|the end of the expression)[\s\S]*\^/],
    ['a value given to a value-less operator', ['--where', 'Phone null 3'], /--where: null takes no value \(at character 12\)/],
    ['a number column compared with text', ['--where', 'Employees > many'], /holds numbers, and "many" is not a number/],
    ['an unknown date preset', ['--where', '"Last Contacted" isDatePreset lastFortnight'], /unknown date preset "lastFortnight"/],
    ['a range that is not dates', ['--where', '"Last Contacted" between a..b'], /is not a date/],
    [
      'a containsAnyOf list over 20 entries',
      ['--where', `Name containsAnyOf [${many(21, (i) => `n${i}`)}]`],
      /at most 20 entries and this list has 21: the service would ignore the last 1/,
    ],
    [
      'a value over 1,000 characters',
      ['--where', `Name = "${'x'.repeat(1001)}"`],
      /the value is 1,001 characters long; the service accepts at most 1,000/,
    ],
    [
      'a group of more than 25 entries',
      ['--where', many(26, (i) => `Name = n${i}`).replaceAll(', ', ' and ')],
      /a filter group has 26 entries; the service accepts at most 25 per group/,
    ],
    [
      'nesting deeper than 5 levels',
      [
        '--where',
        '(((((Name = a or Name = b) and Name = c) or Name = d) and Name = e) or Name = f) and Name = g and (Name = h or (Name = i and Name = j))',
      ],
      /filter groups nest more than 5 levels deep/,
    ],
    ['search text over 100 characters', ['-q', 'x'.repeat(101)], /at most 100/],
    ['--filter that is not JSON', ['--filter', '{rules: ['], /--filter: not valid JSON/],
    [
      '--filter naming a column that does not exist',
      ['--filter', '{"rules": [{"fieldId": "Nope", "operator": "=", "value": 1}]}'],
      /unknown column "Nope"/,
    ],
    [
      '--filter @FILE that cannot be read',
      ['--filter', '@/nonexistent/filter.json'],
      /--filter: cannot read \/nonexistent\/filter\.json \(ENOENT\)/,
    ],
  ])('%s exits 2', async (_name, args, message) => {
    const result = await tds(['query', 'Leads', ...args]);
    expect(result.stderr).toMatch(message);
    expect(result.code).toBe(2);
  });

  it('--explain prints the request body that would be sent and exits 0', async () => {
    const table = await tableNamed(emulator, 'Leads');
    const fields = await schemaOf(emulator, table.id);
    const fieldId = (name: string): string => fields.find((field) => field.name === name)!.id;
    const result = await tds([
      'query',
      'Leads',
      '--where',
      'Stage = "Closed Won" and Employees >= 100',
      '-q',
      'acme',
      '-n',
      '20',
      '--explain',
    ]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      limit: 20,
      q: 'acme',
      filters: {
        combinator: 'and',
        rules: [
          { fieldId: fieldId('stage'), operator: '=', value: 'closed_won' },
          { fieldId: fieldId('employees'), operator: '>=', value: 100 },
        ],
      },
    });
    expect(result.stdout).toContain('\n  "limit": 20,\n'); // pretty-printed
  });
});

// The flag checks themselves are table-tested in test/export/export-flags.test.ts; here, that they stop
// the command before any row is read.
describe.concurrent('tds rows: usage errors before any row request', () => {
  it.each([
    [['--columns', 'Nope'], /--columns: no column "Nope"; the columns are: "Name" \(/],
    [['--format', 'table', '-o', 'leads.csv'], /--format table is for the terminal \(or a pipe\), not for -o FILE/],
    [['--page-size', '101'], /--page-size must be a whole number from 1 to 100/],
  ])('%j exits 2', async (args, message) => {
    const result = await tds(['rows', 'Leads', ...args]);
    expect(result.stderr).toMatch(message);
    expect(result.code).toBe(2);
  });
});
