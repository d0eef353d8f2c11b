import { describe, expect } from 'vitest';
import type { CheckResult } from '../../src/check/check-result.js';
import { openDatabase } from '../../src/duckdb/engine.js';
import { test as it, type Harness } from '../helpers/emulator-fixture.js';
import { FIXTURE_NAME, MIRROR_TABLE, makeFixture, writeChecks, type Fixture } from './fixture.js';

// Each kind of check against a table whose figures are known by construction: pass, warn and fail.

let harness: Harness;
let fixture: Fixture;

it.beforeAll(async ({ harness: fileHarness }) => {
  harness = fileHarness;
  fixture = await makeFixture(harness);
});

async function check(checks: string, extra: string[] = []): Promise<{ code: number | null; results: CheckResult[]; stderr: string }> {
  const file = await writeChecks(harness, `tables:\n  ${FIXTURE_NAME}:\n    checks:\n${checks}`);
  const run = await harness.tds(['check', file, '--format', 'json', ...extra]);
  return { code: run.code, results: run.stdout ? (JSON.parse(run.stdout) as CheckResult[]) : [], stderr: run.stderr };
}

describe('tds check: each kind over the mirror', () => {
  it('every kind passes within its bounds: exit 0', async () => {
    const run = await check(
      [
        '      - rows: {min: 10, max: 10}',
        '      - fill: {column: Email, min: 0.8}',
        '      - unique: Score',
        '      - accepted: {column: Stage, values: [New, Won, lost]}',
        '      - failure_rate: {column: Enrich, max: 0.34}',
        '      - stuck: {column: Enrich, max_age: 36500d}',
        '      - activity: {max_quiet: 36500d}',
        '      - sql: {name: scored, query: "SELECT _id FROM check_fixture WHERE Score IS NULL", max: 3}',
      ].join('\n'),
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.results.map((result) => [result.check, result.status, result.observed])).toEqual([
      ['rows', 'pass', 10],
      ['fill Email', 'pass', 0.8],
      ['unique Score', 'pass', 0],
      ['accepted Stage', 'pass', 0],
      ['failure_rate Enrich', 'pass', 2 / 6],
      ['stuck Enrich', 'pass', 0],
      ['activity', 'pass', expect.any(Number)],
      ['sql scored', 'pass', 3],
    ]);
    expect(run.stderr).toMatch(/checks: 8 pass/);
  });

  it('every kind fails past its bounds, with up to 3 example rows: exit 9', async () => {
    const run = await check(
      [
        '      - rows: {min: 11}',
        '      - fill: {column: Email, min: 0.9}',
        '      - unique: Email',
        '      - accepted: {column: Stage, values: [New, Won]}',
        '      - failure_rate: {column: Enrich, max: 0.3}',
        '      - stuck: {column: Enrich, max_age: 2h}',
        '      - activity: {max_quiet: 1d}',
        '      - sql: {name: scored, query: "SELECT _id FROM check_fixture WHERE Score IS NULL"}',
      ].join('\n'),
    );
    expect(run.code, run.stderr).toBe(9);
    const ids = fixture.ids;
    expect(run.results.map((result) => [result.check, result.status, result.observed, [...result.examples].sort()])).toEqual([
      ['rows', 'fail', 10, []],
      ['fill Email', 'fail', 0.8, [ids[8], ids[9]].sort()],
      ['unique Email', 'fail', 1, [ids[1], ids[2]].sort()],
      ['accepted Stage', 'fail', 1, [ids[8]]],
      ['failure_rate Enrich', 'fail', 2 / 6, [ids[2], ids[4]].sort()],
      ['stuck Enrich', 'fail', 2, [ids[5], ids[6]].sort()],
      ['activity', 'fail', expect.any(Number), []],
      ['sql scored', 'fail', 3, [ids[7], ids[8], ids[9]].sort()],
    ]);
    expect(run.stderr).toMatch(/tds: 8 of 8 checks failed/);
  });

  it('severity warn: past its bounds it warns, and the exit stays 0', async () => {
    const run = await check('      - rows: {max: 5}\n        severity: warn\n      - unique: Email\n        severity: warn');
    expect(run.code, run.stderr).toBe(0);
    expect(run.results.map((result) => result.status)).toEqual(['warn', 'warn']);
  });

  it('a column the table does not have is an error naming the columns there are; an error fails the run (exit 9)', async () => {
    const run = await check('      - fill: {column: Mail, min: 0.5}\n      - stuck: {column: Email, max_age: 1h}');
    expect(run.code, run.stderr).toBe(9);
    expect(run.stderr).toMatch(/tds: 2 of 2 checks could not be evaluated/);
    expect(run.results[0]).toMatchObject({
      status: 'error',
      message: expect.stringMatching(/no column "Mail".*Email, Stage, Score, Enrich/),
    });
    expect(run.results[1]).toMatchObject({ status: 'error', message: expect.stringMatching(/no run state/) });
  });

  it('a check whose only fault is an error: exit 9, JUnit <error>', async () => {
    const file = await writeChecks(
      harness,
      `tables:\n  ${FIXTURE_NAME}:\n    checks:\n      - fill: {column: Nmae, min: 0.5}\n`,
      'nmae.yaml',
    );
    const run = await harness.tds(['check', file, '--format', 'junit']);
    expect(run.code, run.stderr).toBe(9);
    expect(run.stdout).toMatch(/<error message="the table has no column &quot;Nmae&quot;/);
  });

  it('a sql check: a PRAGMA is said not to be a query; past its timeout the query is stopped, an error', async () => {
    const run = await check(
      [
        `      - sql: {name: pragma, query: "PRAGMA table_info('${MIRROR_TABLE}')"}`,
        '      - sql: {name: endless, query: "SELECT a.range AS _id FROM range(1000000000000) a WHERE a.range < 0", timeout: 1s}',
        '      - rows: {min: 1}',
      ].join('\n'),
    );
    expect(run.code, run.stderr).toBe(9);
    expect(run.results.map((result) => [result.check, result.status])).toEqual([
      ['sql pragma', 'error'],
      ['sql endless', 'error'],
      ['rows', 'pass'],
    ]);
    expect(run.results[0]!.message).toMatch(/one SELECT \(or WITH …\) query .*PRAGMA/);
    expect(run.results[1]!.message).toMatch(/ran past its time limit \(timeout: 1s\)/);
  });

  it('fresh: verified_at within max_age passes, older fails, none recorded is an error "not verified yet"', async () => {
    const setVerified = async (value: string): Promise<void> => {
      const db = await openDatabase(harness.db, { readOnly: false, what: 'the mirror' });
      try {
        await db.connection.run('ALTER TABLE _tds_tables ADD COLUMN IF NOT EXISTS verified_at TIMESTAMPTZ');
        await db.connection.run(`UPDATE _tds_tables SET verified_at = ${value}`);
      } finally {
        db.close();
      }
    };
    await check('      - rows: {min: 0}'); // the table in the mirror
    const checks = '      - fresh: {max_age: 1h}\n      - fresh: {max_age: 10m}';
    await setVerified("now() - INTERVAL '30 minutes'");
    const run = await check(checks, ['--no-sync']);
    expect(run.results.map((result) => [result.check, result.status])).toEqual([
      ['fresh', 'pass'],
      ['fresh (2)', 'fail'],
    ]);
    expect(run.results[0]!.observed).toBeGreaterThanOrEqual(1800);
    await setVerified('NULL');
    const never = await check(checks, ['--no-sync']);
    expect(never.results[0]).toMatchObject({ status: 'error', message: expect.stringMatching(/^not verified yet/) });
  });
});
