import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { describe, expect } from 'vitest';
import { displayWidth } from '../../src/output/table.js';
import { COLUMN_RECORD_KEYS } from '../../src/stats/run-stats.js';
import type { TableStats } from '../../src/stats/stats-report.js';
import { FIXTURE_NAME, makeFixture } from './fixture.js';
import { EXPECTED_COLUMNS } from './fixture-expected.js';
import { terminalEnv } from '../helpers/hermetic-env.js';
import { test as it, type Harness } from '../helpers/emulator-fixture.js';

// `tds stats` in every format, to stdout and to -o FILE (atomically), and on a mirror as it is
// (--no-sync: no request; a table not in it: exit 4 with a hint).

let harness: Harness;
let json: TableStats;

it.beforeAll(async ({ openForFile }) => {
  harness = await openForFile();
  await makeFixture(harness);
  const synced = await harness.tds(['stats', FIXTURE_NAME]);
  expect(synced.code, synced.stderr).toBe(0);
  json = JSON.parse(synced.stdout) as TableStats; // not a terminal: JSON
});

const path = (name: string): string => join(harness.dir, name);
const lines = (text: string): string[] => text.trimEnd().split('\n');

describe('tds stats: formats', () => {
  it('ndjson: one record per column with the same keys, in schema order', async () => {
    const result = await harness.tds(['stats', FIXTURE_NAME, '--no-sync', '--format', 'ndjson']);
    expect(result.code, result.stderr).toBe(0);
    const records = lines(result.stdout).map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(records.map((record) => Object.keys(record))).toEqual(records.map(() => COLUMN_RECORD_KEYS));
    expect(records).toEqual(json.columns);
  });

  it('csv and tsv: a header of the keys, a line per column, nested values as JSON text', async () => {
    for (const format of ['csv', 'tsv']) {
      const result = await harness.tds(['stats', FIXTURE_NAME, '--no-sync', '--format', format]);
      expect(result.code, result.stderr).toBe(0);
      const rows = parse(result.stdout, { columns: true, delimiter: format === 'csv' ? ',' : '\t' }) as Array<Record<string, string>>;
      expect(rows.map((row) => row.key)).toEqual(EXPECTED_COLUMNS.map((column) => column.key));
      const enrich = rows.find((row) => row.key === 'Enrich')!;
      expect(JSON.parse(enrich.states!)).toEqual(EXPECTED_COLUMNS.at(-1)!.states);
      expect(JSON.parse(enrich.errors!)).toEqual(json.columns.at(-1)!.errors);
      expect(rows.find((row) => row.key === 'Amount')!.mean).toBe(String(14.5 / 6));
      expect(rows.find((row) => row.key === 'Name')!.states).toBe('');
    }
  });

  it('table on a terminal: sections that read at a glance, no colour unless asked', async () => {
    const result = await harness.tds(['stats', FIXTURE_NAME, '--no-sync'], { env: terminalEnv(120) });
    expect(result.code, result.stderr).toBe(0);
    const text = result.stdout;
    expect(text).not.toMatch(/\u001b\[/);
    expect(text).toMatch(
      /^Stats Fixture · Sales · 15 rows · 11 columns · synced [^\n]*(\n {2}| · )exact as of [^\n]*(\n {2}| · )mirror table stats_fixture$/m,
    );
    expect(text).toContain('rows created per day (UTC), the last 3 days with rows:');
    expect(text).toMatch(/^ {2}2025-05-01 ██ █ 2025-05-04 {2}peak 5 on 2025-05-01$/m);
    expect(text).toMatch(/^Stage +select +█+[▏▎▍▌▋▊▉]?░* +47% +7 +3 +New ×4 · Won ×2 · lost ×1$/m);
    expect(text).toMatch(/^Notes +text .* 2 cut at 200 characters · x+/m);
    expect(text).toMatch(/█ success 2 {2}▓ failed 5 {2}░ skipped 1 {2}× stopped 1 {2}- queued 1 {2}~ waiting 1/);
    expect(text).toContain('Failure causes: Enrich (3 causes)');
    expect(text).toMatch(/^ {2}3 {2}Domain <domain> could not be resolved$/m);
    expect(text).toMatch(/^ {5}e\.g\. Domain [abc]\.example could not be resolved · rows /m);
  });

  it('table sized to a narrow terminal', async () => {
    for (const columns of [60, 80]) {
      const result = await harness.tds(['stats', FIXTURE_NAME, '--no-sync'], { env: terminalEnv(columns) });
      for (const line of lines(result.stdout)) expect(displayWidth(line), line).toBeLessThanOrEqual(columns);
      expect(result.stdout).toMatch(/^Stats Fixture · Sales · 15 rows · 11 columns( · synced [^\n]*)?\n {2}(synced|mirror|exact) /);
    }
  });

  it('table in colour on a colour terminal', async () => {
    const result = await harness.tds(['stats', FIXTURE_NAME, '--no-sync'], { env: terminalEnv(100, true) });
    expect(result.stdout).toMatch(/\u001b\[32m█+\u001b\[39m/); // the success segment in green
  });
});

describe('tds stats -o FILE', () => {
  it('writes the format its extension names, atomically (no partial file left), and says so on stderr', async () => {
    for (const [name, check] of [
      ['stats.json', (text: string) => expect(JSON.parse(text)).toEqual(json)],
      ['stats.ndjson', (text: string) => expect(lines(text)).toHaveLength(EXPECTED_COLUMNS.length)],
      ['stats.csv', (text: string) => expect(lines(text)[0]).toBe(COLUMN_RECORD_KEYS.join(','))],
      ['stats.txt', (text: string) => expect(text).toMatch(/^Stats Fixture · /)],
      ['stats.html', (text: string) => expect(text).toMatch(/^<!doctype html>/)],
    ] as const) {
      const result = await harness.tds(['stats', FIXTURE_NAME, '--no-sync', '-o', path(name)]);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toBe('');
      expect(result.stderr).toBe(`stats written to ${path(name)}\n`);
      check(await readFile(path(name), 'utf8'));
    }
    expect((await readdir(harness.dir)).filter((name) => name.endsWith('.partial'))).toEqual([]);
  });

  it('leaves FILE as it was when the run fails', async () => {
    await writeFile(path('kept.json'), 'before');
    const result = await harness.tds(['stats', FIXTURE_NAME, '--no-sync', '--columns', 'Nope', '-o', path('kept.json')]);
    expect(result.code).toBe(2);
    expect(await readFile(path('kept.json'), 'utf8')).toBe('before');
    expect((await readdir(harness.dir)).filter((name) => name.endsWith('.partial'))).toEqual([]);
  });

  it('refuses an extension it cannot tell the format of, and a folder, before any request', async () => {
    const before = (await harness.admin<unknown[]>('GET', '/requests')).length;
    const unknown = await harness.tds(['stats', FIXTURE_NAME, '-o', path('stats.xlsx')]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/cannot tell the format of .*stats\.xlsx/);
    await mkdir(path('folder.json'));
    const folder = await harness.tds(['stats', FIXTURE_NAME, '-o', path('folder.json')]);
    expect(folder.code).toBe(2);
    expect(folder.stderr).toMatch(/is a folder/);
    expect((await harness.admin<unknown[]>('GET', '/requests')).length).toBe(before);
  });
});

describe('tds stats --no-sync', () => {
  it('uses the mirror as it is: no request to the service', async () => {
    const before = (await harness.admin<unknown[]>('GET', '/requests')).length;
    const result = await harness.tds(['stats', FIXTURE_NAME, '--no-sync', '--format', 'json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(json);
    expect(result.stderr).toBe('');
    expect((await harness.admin<unknown[]>('GET', '/requests')).length).toBe(before);
  });

  it('a table not in the mirror: exit 4 and a hint to sync it', async () => {
    const result = await harness.tds(['stats', 'Leads', '--no-sync']);
    expect(result.code).toBe(4);
    expect(result.stderr).toBe(
      `tds: the table "Leads" is not in the mirror ${harness.db}\n` +
        'hint: sync it first (`tds sync Leads`), or leave out --no-sync and `tds stats` syncs it\n',
    );
  });

  it('without an API key, says that stats syncs first and that --no-sync does not', async () => {
    const result = await harness.tds(['stats', FIXTURE_NAME], { env: { TDS_API_KEY: '' } });
    expect(result.code).toBe(3);
    expect(result.stderr).toBe(
      'tds: tds stats syncs the table first, and no API key is set\n' +
        'hint: set TDS_API_KEY (or --api-key-file), or add --no-sync to profile the mirror as it is\n',
    );
  });

  it('no mirror at all: exit 4 and a hint to make one', async () => {
    const result = await harness.tds(['stats', FIXTURE_NAME, '--no-sync', '--db', path('none.duckdb')]);
    expect(result.code).toBe(4);
    expect(result.stderr).toMatch(/^tds: there is no mirror .*none\.duckdb\nhint: make it with `tds sync TABLE --db /);
  });
});
