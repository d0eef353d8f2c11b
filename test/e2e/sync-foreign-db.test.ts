import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect } from 'vitest';
import { mirrorRows } from '../mirror/helpers.js';
import { test as it, useOpenOfEachTest } from '../helpers/emulator-fixture.js';

// A DuckDB file of another program is never written by tds; names the user gave objects in a mirror are
// never taken by a mirror table (issue 20, item 7).

const openHarness = useOpenOfEachTest();

/** A DuckDB file made by "another program": these statements, nothing of tds. */
async function theirDatabase(path: string, statements: string[]): Promise<void> {
  const instance = await DuckDBInstance.create(path);
  const connection = await instance.connect();
  for (const sql of statements) await connection.run(sql);
  connection.closeSync();
  instance.closeSync();
}

const digest = async (path: string): Promise<string> =>
  createHash('sha256')
    .update(await readFile(path))
    .digest('hex');

describe('tds sync --db: a database that is not a mirror', () => {
  it.each([
    ['a table leads', ['CREATE TABLE leads (name VARCHAR, score INTEGER)', "INSERT INTO leads VALUES ('Ada', 3)"], /it holds table leads/],
    ['a view leads', ['CREATE VIEW leads AS SELECT 1 AS one'], /it holds view leads/],
    ['a macro and a sequence', ['CREATE MACRO twice(x) AS 2 * x', 'CREATE SEQUENCE ids'], /it holds macro twice, sequence ids/],
    [
      'a foreign _tds_tables(x int)',
      ['CREATE TABLE _tds_tables (x INTEGER)'],
      /is not a tds mirror: its table _tds_tables is not one tds made/,
    ],
  ])('%s: refused with exit 2, the file left byte for byte as it was', async (_name, statements, message) => {
    const harness = await openHarness();
    const theirs = join(harness.dir, 'theirs.duckdb');
    await theirDatabase(theirs, statements);
    const before = await digest(theirs);
    for (const args of [
      ['sync', 'Leads', '--db', theirs],
      ['sql', 'CREATE TABLE mine (x INTEGER)', '--write', '--db', theirs],
    ]) {
      const result = await harness.tds(args);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toMatch(message);
      expect(result.stderr).toMatch(/hint: give --db a new file name/);
      expect(await digest(theirs)).toBe(before);
    }
    // reading it is fine: tds sql opens it read-only
    const read = await harness.tds(['sql', 'SELECT count(*) AS n FROM duckdb_tables()', '--db', theirs, '--format', 'csv']);
    expect(read.code, read.stderr).toBe(0);
  });

  it('the readers of a mirror (stats, check, diff, lake check) say it is not one: exit 2, not a crash', async () => {
    const harness = await openHarness();
    const theirs = join(harness.dir, 'theirs.duckdb');
    await theirDatabase(theirs, ['CREATE TABLE leads (name VARCHAR)']);
    const checks = join(harness.dir, 'checks.yaml');
    await writeFile(checks, 'tables:\n  leads:\n    checks:\n      - rows: {min: 1}\n');
    for (const args of [
      ['stats', 'leads', '--no-sync'],
      ['check', checks, '--no-sync'],
      ['diff', 'leads'],
      ['lake', 'check', join(harness.dir, 'lake')],
    ]) {
      const result = await harness.tds([...args, '--db', theirs]);
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(2);
      expect(result.stderr).toBe(`tds: ${theirs} is not a tds mirror\nhint: give --db the mirror made by tds sync\n`);
    }
  });

  it('an empty DuckDB file is made a mirror', async () => {
    const harness = await openHarness();
    const empty = join(harness.dir, 'empty.duckdb');
    await theirDatabase(empty, []);
    const result = await harness.tds(['sync', 'Leads', '--db', empty]);
    expect(result.code, result.stderr).toBe(0);
  });
});

describe("tds sync: the user's own objects in a mirror", () => {
  it('a view the user made keeps its name: a new mirror table takes another', async () => {
    const harness = await openHarness();
    expect((await harness.tds(['sync', 'Leads'])).code).toBe(0);
    const view = await harness.tds(['sql', 'CREATE VIEW Signups AS SELECT * FROM leads', '--write']);
    expect(view.code, view.stderr).toBe(0);
    const result = await harness.tds(['sync', 'Signups', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const [table] = JSON.parse(result.stdout).tables as Array<{ mirrorTable: string }>;
    expect(table!.mirrorTable).toBe('marketing_signups');
    // the view is the user's as before
    expect((await mirrorRows(harness, 'signups')).length).toBe((await mirrorRows(harness, 'leads')).length);
  });
});
