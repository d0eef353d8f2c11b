import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { MAX_CHECKS_FILE_BYTES, parseChecks, readChecksFile } from '../../src/check/checks-file.js';
import { UsageError } from '../../src/core/errors.js';
import { test as it } from '../helpers/emulator-fixture.js';
import { DOCUMENTED_CHECKS } from './fixture.js';

// The checks file: every kind read, and every mistake (a hostile file's too) a usage error that
// names the line and column and what is wrong, before anything runs.

const parse = (text: string): ReturnType<typeof parseChecks> => parseChecks(text, 'checks.yaml');

function mistake(text: string): string {
  try {
    parse(text);
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as UsageError).message;
  }
  throw new Error('no mistake found');
}

describe('the checks file', () => {
  it("reads docs/cli.md's example: the contract and one check of each kind, with names and severities", () => {
    const [leads] = parse(`tables:
  Leads:
    schema:
      fields: {Email: email, Lead score: number, Enrich: action}
      on_drift: warn
    checks:
      - rows: {min: 100, max: 45000}
      - fill: {column: Email, min: 0.95}
      - unique: Email
      - accepted: {column: Stage, values: [New, Qualified, Closed Won]}
      - failure_rate: {column: Enrich, max: 0.2, since: 7d}
      - stuck: {column: Enrich, max_age: 2h}
      - activity: {max_quiet: 1d}
      - fresh: {max_age: 1h}
      - stale: {}
      - sql: {name: owners, query: "SELECT _id FROM leads WHERE Owner IS NULL", max: 0}
        severity: warn
      - unique: {column: Email}
`);
    expect(leads!.ref).toBe('Leads');
    expect(leads!.schema).toEqual({
      fields: [
        { label: 'Email', type: 'email' },
        { label: 'Lead score', type: 'number' },
        { label: 'Enrich', type: 'action' },
      ],
      onDrift: 'warn',
    });
    expect(leads!.checks.map((check) => [check.name, check.severity])).toEqual([...DOCUMENTED_CHECKS, ['unique Email (2)', 'fail']]);
    expect(leads!.checks[4]!.spec).toEqual({ kind: 'failure_rate', column: 'Enrich', max: 0.2, since: { text: '7d', ms: 7 * 86_400_000 } });
  });

  it.each([
    ['not YAML', 'tables:\n  Leads:\n    checks: [\n', /^checks\.yaml:4:1: not valid YAML/],
    ['no tables', 'checks: []\n', /^checks\.yaml:1:1: the file: unknown key "checks"/],
    [
      'an unknown key in a check',
      'tables:\n  Leads:\n    checks:\n      - rows: {min: 1, mni: 2}\n',
      /^checks\.yaml:4:24: .*rows: unknown key "mni" \(known: min, max\)/,
    ],
    ['an unknown kind', 'tables:\n  Leads:\n    checks:\n      - nulls: {column: A}\n', /^checks\.yaml:4:9: .*unknown key "nulls"/],
    [
      'two kinds in one check',
      'tables:\n  Leads:\n    checks:\n      - {rows: {min: 1}, unique: A}\n',
      /^checks\.yaml:4:9: .*exactly one kind.*it has 2/,
    ],
    ['a huge number', 'tables:\n  Leads:\n    checks:\n      - rows: {min: 1e400}\n', /^checks\.yaml:4:21: .*min must be a number/],
    [
      'a count past 2^53',
      'tables:\n  Leads:\n    checks:\n      - rows: {max: 99999999999999999999}\n',
      /max must be between 0 and 9007199254740991/,
    ],
    [
      'a share above 1',
      'tables:\n  Leads:\n    checks:\n      - fill: {column: A, min: 95}\n',
      /^checks\.yaml:4:32: .*min must be a share between 0 and 1 \(got 95; 95 % is 0\.95, or write 95%\)/,
    ],
    ['a share above 100 %', 'tables:\n  Leads:\n    checks:\n      - fill: {column: A, min: 120%}\n', /min must be between 0 % and 100 %/],
    [
      'a share that is neither',
      'tables:\n  Leads:\n    checks:\n      - fill: {column: A, min: most}\n',
      /min must be a share: 0\.05 or 5%/,
    ],
    [
      'a huge duration',
      'tables:\n  Leads:\n    checks:\n      - activity: {max_quiet: 99999999999999d}\n',
      /not a duration of up to 100 years/,
    ],
    ['a bad duration', 'tables:\n  Leads:\n    checks:\n      - stuck: {column: A, max_age: soon}\n', /"soon" is not a duration/],
    [
      'a bad severity',
      'tables:\n  Leads:\n    checks:\n      - rows: {min: 1}\n        severity: panic\n',
      /^checks\.yaml:5:19: .*severity must be fail or warn/,
    ],
    ['a bad field type', 'tables:\n  Leads:\n    schema:\n      fields: {A: strng}\n', /^checks\.yaml:4:19: .*"strng" is not a field type/],
    ['a missing column', 'tables:\n  Leads:\n    checks:\n      - fill: {min: 0.5}\n', /fill: column is required/],
    ['a table with nothing to check', 'tables:\n  Leads: {}\n', /declares neither a schema nor checks/],
    [
      'a duplicate key',
      'tables:\n  Leads:\n    checks: []\n    checks: []\n',
      /^checks\.yaml:\d+:\d+: not valid YAML: Map keys must be unique/,
    ],
    ['an alias', 'tables:\n  Leads:\n    checks:\n      - &a {rows: {min: 1}}\n      - *a\n', /aliases \(\*name\) are not read/],
    [
      'deep nesting',
      `tables:\n  Leads:\n    checks: ${'['.repeat(5000)}${']'.repeat(5000)}\n`,
      /^checks\.yaml:3: nested deeper than a checks file ever is/,
    ],
    [
      'deep block nesting',
      `tables:\n${Array.from({ length: 200 }, (_, i) => `${' '.repeat(i + 1)}k${i}:`).join('\n')}\n`,
      /indented deeper than a checks file ever is/,
    ],
  ])('%s', (_name, text, message) => {
    expect(mistake(text)).toMatch(message);
  });

  it('a share is written 0.05 or 5%', () => {
    const [leads] = parse(
      'tables:\n  Leads:\n    checks:\n      - fill: {column: A, min: 95%, max: 1}\n      - failure_rate: {column: E, max: 5 %}\n',
    );
    expect(leads!.checks.map((check) => check.spec)).toEqual([
      { kind: 'fill', column: 'A', min: 0.95, max: 1 },
      { kind: 'failure_rate', column: 'E', max: 0.05 },
    ]);
  });

  it('a file larger than a checks file ever is is refused by its size, before it is parsed', async ({ tmp }) => {
    const path = join(tmp, 'huge.yaml');
    await writeFile(path, `tables:\n  Leads:\n    checks:\n      - rows: {min: 1}\n${'#'.repeat(MAX_CHECKS_FILE_BYTES)}\n`);
    await expect(readChecksFile(path)).rejects.toThrow(/is 1,000,0\d\d bytes: more than a checks file ever is/);
  });
});
