import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdir, readFile } from 'node:fs/promises';
import { describe, expect, vi } from 'vitest';
import type { CheckResult } from '../../src/check/check-result.js';
import { test as it, type Harness } from '../helpers/emulator-fixture.js';
import { sqlJson } from '../helpers/sql-json.js';
import { terminalEnv } from '../helpers/hermetic-env.js';
import { FIXTURE_NAME, makeFixture, writeChecks } from './fixture.js';
import { expectJUnit, parseXml } from './junit-schema.js';

// What `tds check` writes: the terminal table grouped by table (symbols that differ without colour),
// JUnit XML for CI (parsed and held to the JUnit schema), -o FILE atomically; the sql checks' sandbox;
// the runs kept in _tds_checks.

let harness: Harness;
let file: string;

const CHECKS = `tables:
  ${FIXTURE_NAME}:
    checks:
      - rows: {min: 1}
      - unique: Email
      - rows: {max: 5}
        severity: warn
      - fill: {column: Nope, min: 1}
      - sql: {name: "odd <&> \\"name\\"", query: "SELECT _id FROM check_fixture WHERE Email IS NULL"}
  Not A Table:
    checks:
      - rows: {min: 1}
`;

it.beforeAll(async ({ harness: fileHarness }) => {
  harness = fileHarness;
  await makeFixture(harness);
  file = await writeChecks(harness, CHECKS);
});

describe('tds check: output', () => {
  it('the terminal table: grouped by table, a mark per status that reads without colour', async () => {
    const run = await harness.tds(['check', file], { env: terminalEnv(160) });
    expect(run.code).toBe(9);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toBe(FIXTURE_NAME);
    expect(lines[1]).toMatch(/^STATUS\s+CHECK\s+OBSERVED\s+THRESHOLD\s+DETAIL/);
    expect(run.stdout).toMatch(/✓ pass\s+rows\s+10\s+≥ 1/);
    expect(run.stdout).toMatch(/✗ FAIL\s+unique Email\s+1\s+0 rows\s+e\.g\. row_/);
    expect(run.stdout).toMatch(/! warn\s+rows \(2\)\s+10\s+≤ 5/);
    expect(run.stdout).toMatch(/\? error\s+fill Nope\s+–/);
    expect(run.stdout).toMatch(/\n\nNot A Table\n/);
    expect(run.stdout).not.toMatch(/\u001b\[/);
    expect(run.stderr).toMatch(/checks: 2 fail, 2 error, 1 warn, 1 pass/);
    const coloured = await harness.tds(['check', file], { env: terminalEnv(160, true) });
    expect(coloured.stdout).toMatch(/\u001b\[31m\u001b\[1m✗ FAIL/);
  });

  it('JUnit XML to -o FILE (atomically: no partial file left): one test case per check, in the JUnit schema', async () => {
    const run = await harness.tds(['check', file, '--format', 'junit', '-o', 'checks.xml']);
    expect(run.code).toBe(9);
    expect(run.stdout).toBe('');
    expect((await readdir(harness.dir)).filter((name) => name.startsWith('checks.xml'))).toEqual(['checks.xml']);
    const root = parseXml(await readFile(`${harness.dir}/checks.xml`, 'utf8'));
    expectJUnit(root);
    expect(root.attributes).toMatchObject({ tests: '6', failures: '2', errors: '2' });
    const [fixtureSuite, missing] = root.children;
    expect(fixtureSuite!.attributes.name).toBe(FIXTURE_NAME);
    expect(fixtureSuite!.children.map((each) => [each.attributes.name, each.children.map((child) => child.name)])).toEqual([
      ['rows', []],
      ['unique Email', ['failure']],
      ['rows (2)', ['system-out']],
      ['fill Nope', ['error']],
      ['sql odd <&> "name"', ['failure']],
    ]);
    expect(fixtureSuite!.children[1]!.children[0]!.attributes.message).toMatch(/^unique Email: observed 1, threshold 0 rows/);
    expect(missing!.children[0]!.children[0]!.attributes.message).toMatch(/not in the mirror/);
  });

  it('-o FILE.json and --format json: an array of results', async () => {
    const run = await harness.tds(['check', file, '-o', 'checks.json']);
    expect(run.code).toBe(9);
    const results = JSON.parse(await readFile(`${harness.dir}/checks.json`, 'utf8')) as CheckResult[];
    expect(results[1]).toEqual({
      table: FIXTURE_NAME,
      check: 'unique Email',
      kind: 'unique',
      status: 'fail',
      observed: 1,
      threshold: '0 rows',
      examples: [expect.stringMatching(/^row_/), expect.stringMatching(/^row_/)],
      message: null,
    });
  });

  it('a sql check runs in the sandbox of tds sql: a write, a file read or written, an attach are errors, the mirror unchanged', async () => {
    const hostile = await writeChecks(
      harness,
      `tables:
  ${FIXTURE_NAME}:
    checks:
      - sql: {name: write, query: "DELETE FROM check_fixture"}
      - sql: {name: read, query: "SELECT * FROM read_csv('/etc/passwd')"}
      - sql: {name: copy, query: "COPY check_fixture TO 'out.csv'"}
      - sql: {name: attach, query: "ATTACH 'other.duckdb'"}
      - sql: {name: two, query: "SELECT 1; DROP TABLE check_fixture"}
      - rows: {min: 10, max: 10}
`,
      'hostile.yaml',
    );
    const run = await harness.tds(['check', hostile, '--no-sync', '--format', 'json']);
    const results = JSON.parse(run.stdout) as CheckResult[];
    expect(results.map((result) => [result.check, result.status])).toEqual([
      ['sql write', 'error'],
      ['sql read', 'error'],
      ['sql copy', 'error'],
      ['sql attach', 'error'],
      ['sql two', 'error'],
      ['rows', 'pass'],
    ]);
    expect(results[0]!.message).toMatch(/a sql check is one SELECT \(or WITH …\) query/);
    expect(results[1]!.message).toMatch(/external access|file/i);
    expect(results[2]!.message).toMatch(/COPY reads and writes files|file system operations are disabled/);
    expect(await readdir(harness.dir)).not.toContain('out.csv');
    expect(await readdir(harness.dir)).not.toContain('other.duckdb');
  });

  it('each run is kept in _tds_checks, for tds sql', async () => {
    const [row] = await sqlJson<{ runs: number; checks: number }>(
      harness,
      'SELECT max(run) AS runs, count(DISTINCT "check") AS checks FROM _tds_checks',
    );
    expect(row!.runs).toBeGreaterThanOrEqual(4);
  });

  it('waits for a mirror another process writes, saying who holds it, and runs once it is free', async () => {
    await harness.tds(['check', file]);
    // another process with the mirror open for writing (DuckDB's lock is per process) until its stdin ends
    const holder = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { DuckDBInstance } from '@duckdb/node-api';
         const instance = await DuckDBInstance.create(process.argv[1]);
         const connection = await instance.connect();
         await connection.run('SELECT 1');
         process.stdout.write('held\\n');
         process.stdin.resume();
         process.stdin.on('end', () => { connection.closeSync(); instance.closeSync(); process.exit(0); });`,
        harness.db,
      ],
      { stdio: ['pipe', 'pipe', 'inherit'] },
    );
    await once(holder.stdout, 'data');
    const run = harness.spawn(['check', file, '--no-sync']);
    try {
      await vi.waitFor(() => expect(/holds it/.test(run.stderr()) || run.child.exitCode !== null).toBe(true), {
        timeout: 10_000,
        interval: 20,
      });
    } finally {
      holder.stdin.end();
    }
    await once(holder, 'close');
    expect(await run.exit, run.stderr()).toBe(9);
    expect(run.stderr()).toMatch(new RegExp(`waiting for the mirror ${harness.db}: PID ${holder.pid} \\(node\\) holds it`));
  });

  it('no checks file: exit 2 saying what to do', async () => {
    const run = await harness.tds(['check', '--no-sync']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/cannot read the checks file tds-checks\.yaml \(ENOENT\)\n.*tds check FILE/);
  });
});
