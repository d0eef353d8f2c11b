import { readFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { describe, expect } from 'vitest';
import { columnTypes, readParquet } from '../export/parquet-file.js';
import { mirrorRows } from '../mirror/helpers.js';
import { test as it, type Harness } from '../helpers/emulator-fixture.js';

// `tds sql` end to end: one statement against a mirror that `tds sync` made of the demo's Leads table,
// printed in every format, written to files (Parquet by DuckDB's COPY), read-only unless --write, and
// DuckDB's own errors as usage errors (exit 2).

let harness: Harness;
/** The mirror's leads, as `SELECT *` gives them in NDJSON. */
let leads: Array<Record<string, unknown>>;

it.beforeAll(async ({ openForFile }) => {
  harness = await openForFile();
  const synced = await harness.tds(['sync', 'Leads']);
  expect(synced.code, synced.stderr).toBe(0);
  leads = await mirrorRows(harness, 'leads');
  expect(leads.length).toBeGreaterThan(100);
});

const lines = (text: string): string[] => text.trimEnd().split('\n');
/** By `_id` as DuckDB orders text: by code point, not by locale. */
const byId = (a: Record<string, unknown>, b: Record<string, unknown>): number => (String(a._id) < String(b._id) ? -1 : 1);

describe('tds sql: a query printed like an export', () => {
  it('is CSV when piped, with the column names as the header', async () => {
    const result = await harness.tds(['sql', 'SELECT "_id", Name FROM leads ORDER BY "_id" LIMIT 3']);
    expect(result.code, result.stderr).toBe(0);
    const sorted = [...leads].sort(byId).slice(0, 3);
    expect(parse(result.stdout, { columns: true })).toEqual(sorted.map((row) => ({ _id: row._id, Name: row.Name ?? '' })));
  });

  it('keeps types in NDJSON and JSON: numbers, booleans, lists, instants as ISO 8601', async () => {
    const sql = 'SELECT count(*) AS n, max(Employees) AS most, bool_or(Tags IS NOT NULL) AS tagged, max("_createdAt") AS newest FROM leads';
    const ndjson = await harness.tds(['sql', sql, '--format', 'ndjson']);
    expect(ndjson.code, ndjson.stderr).toBe(0);
    const employees = leads.map((row) => row.Employees).filter((value): value is number => typeof value === 'number');
    const newest = leads
      .map((row) => String(row._createdAt))
      .sort()
      .at(-1);
    expect(JSON.parse(ndjson.stdout)).toEqual({ n: leads.length, most: Math.max(...employees), tagged: true, newest });

    const json = await harness.tds([
      'sql',
      'SELECT Name, Tags FROM leads WHERE Tags IS NOT NULL ORDER BY "_id" LIMIT 2',
      '--format',
      'json',
    ]);
    expect(json.code, json.stderr).toBe(0);
    const parsed = JSON.parse(json.stdout) as Array<{ Name: string; Tags: string[] }>;
    expect(parsed).toHaveLength(2);
    for (const row of parsed) expect(Array.isArray(row.Tags)).toBe(true);
  });

  it('--format tsv and table; the table counts its rows on stderr', async () => {
    const tsv = await harness.tds(['sql', "SELECT 1 AS a, 'x y' AS b", '--format', 'tsv']);
    expect(tsv.stdout).toBe('a\tb\n1\tx y\n');
    const table = await harness.tds(['sql', 'SELECT Name FROM leads ORDER BY "_id" LIMIT 3', '--format', 'table']);
    expect(table.code, table.stderr).toBe(0);
    expect(lines(table.stdout)).toHaveLength(4);
    expect(lines(table.stdout)[0]?.trim()).toBe('Name');
    expect(table.stderr).toBe('3 rows\n');
  });

  it('is a table on a terminal', async () => {
    const result = await harness.tds(['sql', 'SELECT 1 AS a, 2 AS b'], { env: { TDS_FORCE_TTY: '1', NO_COLOR: '1' } });
    expect(result.code, result.stderr).toBe(0);
    expect(lines(result.stdout).map((line) => line.trim().split(/\s+/))).toEqual([
      ['a', 'b'],
      ['1', '2'],
    ]);
    expect(result.stderr).toBe('1 row\n');
  });

  it('renders like tds rows on a terminal: numbers right-aligned, lists joined, members by name', async () => {
    const sql = `SELECT 7 AS n, ['VIP', 'SMB'] AS tags, '{"id":"usr_1","name":"Ada Lovelace"}'::JSON AS owner UNION ALL SELECT 1200, [], NULL`;
    const result = await harness.tds(['sql', sql], { env: { TDS_FORCE_TTY: '1' } });
    expect(result.code, result.stderr).toBe(0);
    const [header, first, second] = lines(result.stdout);
    expect(header).toMatch(/^ {3}n {2}tags {6}owner$/);
    expect(first).toBe('   7  VIP, SMB  Ada Lovelace');
    expect(second?.trimEnd()).toBe('1200');
  });

  it('goes through the pager (TDS_PAGER, PAGER) when longer than the terminal, never when not a terminal', async () => {
    const sql = 'SELECT range AS n FROM range(30)';
    const pager = { TDS_PAGER: "sed 's/^/paged: /'", LINES: '20' };
    const paged = await harness.tds(['sql', sql], { env: { TDS_FORCE_TTY: '1', ...pager } });
    expect(paged.code, paged.stderr).toBe(0);
    expect(lines(paged.stdout)).toHaveLength(31);
    for (const line of lines(paged.stdout)) expect(line).toMatch(/^paged: /);
    const short = await harness.tds(['sql', 'SELECT range AS n FROM range(3)'], { env: { TDS_FORCE_TTY: '1', ...pager } });
    expect(short.stdout).not.toContain('paged');
    const piped = await harness.tds(['sql', sql, '--format', 'table'], { env: pager });
    expect(piped.stdout).not.toContain('paged');
  });

  it('reads the statement from stdin with -', async () => {
    const result = await harness.tds(['sql', '-', '--format', 'ndjson'], { input: 'SELECT count(*) AS n FROM leads\n' });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ n: leads.length });
  });

  it('-o FILE writes the format its extension names, atomically', async () => {
    const result = await harness.tds(['sql', 'SELECT "_id" FROM leads', '-o', 'ids.ndjson']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('');
    const ids = lines(await readFile(join(harness.dir, 'ids.ndjson'), 'utf8')).map((line) => (JSON.parse(line) as { _id: string })._id);
    expect(ids.sort()).toEqual(leads.map((row) => String(row._id)).sort());
    expect((await readdir(harness.dir)).filter((name) => name.includes('.partial'))).toEqual([]);
  });
});

describe('tds sql: Parquet and backups through DuckDB', () => {
  it("-o FILE.parquet is written by COPY with the mirror's types, row for row", async () => {
    const result = await harness.tds(['sql', 'SELECT "_id", Name, Employees, Tags, "_createdAt" FROM leads', '-o', 'leads.parquet']);
    expect(result.code, result.stderr).toBe(0);
    const file = await readParquet(join(harness.dir, 'leads.parquet'));
    expect(columnTypes(file)).toEqual([
      '_id VARCHAR',
      'Name VARCHAR',
      'Employees DOUBLE',
      'Tags VARCHAR[]',
      '_createdAt TIMESTAMP WITH TIME ZONE',
    ]);
    const pick = (row: Record<string, unknown>) => ({
      _id: row._id,
      Name: row.Name ?? null,
      Employees: row.Employees ?? null,
      Tags: row.Tags ?? null,
      _createdAt: row._createdAt,
    });
    expect(file.rows.sort(byId)).toEqual(leads.map(pick).sort(byId));
  });

  it('Parquet needs -o FILE and a query; a failed COPY leaves no file', async () => {
    const bare = await harness.tds(['sql', 'SELECT 1', '--format', 'parquet']);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toMatch(/parquet needs -o FILE/);
    const notQuery = await harness.tds(['sql', "UPDATE leads SET Name = 'x'", '-o', 'tables.parquet', '--write']);
    expect(notQuery.code).toBe(2);
    expect(notQuery.stderr).toMatch(/writes the rows of a query/);
    const untouched = await harness.tds(['sql', "SELECT count(*) AS n FROM leads WHERE Name = 'x'", '--format', 'ndjson']);
    expect(JSON.parse(untouched.stdout)).toEqual({ n: 0 });
    const failing = await harness.tds(['sql', "SELECT CAST('x' AS INTEGER) AS n", '-o', 'bad.parquet']);
    expect(failing.code).toBe(2);
    expect(failing.stderr).toMatch(/^tds: SQL: Conversion Error/m);
    expect((await readdir(harness.dir)).filter((name) => name.startsWith('bad') || name.startsWith('tables'))).toEqual([]);
  });

  it('makes a backup of every mirror table to Parquet in one statement, read-only, given --files', async () => {
    const result = await harness.tds(['sql', "EXPORT DATABASE 'backup' (FORMAT parquet)", '--files']);
    expect(result.code, result.stderr).toBe(0);
    const files = await readdir(join(harness.dir, 'backup'));
    expect(files).toEqual(expect.arrayContaining(['leads.parquet', '_tds_tables.parquet', 'schema.sql', 'load.sql']));
    expect((await readParquet(join(harness.dir, 'backup', 'leads.parquet'))).rows).toHaveLength(leads.length);
  });
});

describe('tds sql: read-only unless --write, and DuckDB errors as exit 2', () => {
  it('refuses a change without --write, with a hint; makes it with --write and counts the rows', async () => {
    const before = (await stat(harness.db)).mtimeMs;
    const refused = await harness.tds(['sql', "UPDATE leads SET Name = 'changed'"]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^tds: SQL: .*read-only mode/m);
    expect(refused.stderr).toMatch(/hint: the mirror is opened read-only: add --write to change it/);
    expect((await stat(harness.db)).mtimeMs).toBe(before);

    const changed = await harness.tds(['sql', `UPDATE leads SET Name = 'changed' WHERE "_id" = '${String(leads[0]!._id)}'`, '--write']);
    expect(changed.code, changed.stderr).toBe(0);
    expect(changed.stderr).toBe('1 rows changed\n');
    const now = await harness.tds(['sql', `SELECT Name FROM leads WHERE "_id" = '${String(leads[0]!._id)}'`, '--format', 'ndjson']);
    expect(JSON.parse(now.stdout)).toEqual({ Name: 'changed' });
  });

  it.each([
    ['a syntax error', ['SELEC 1'], /^tds: SQL: .*Parser Error: syntax error at or near "SELEC"$/m],
    [
      'an unknown table',
      ['SELECT * FROM nope'],
      /^tds: SQL: Catalog Error: Table with name nope does not exist!\nhint: SHOW TABLES lists/m,
    ],
    ['two statements', ['SELECT 1; SELECT 2'], /^tds: tds sql runs one statement; this text holds 2\nhint: run them one at a time$/m],
    ['no statement', [' '], /no SQL statement given/],
    [
      '-o FILE.parquet in a folder that is not there',
      ['SELECT 1', '-o', '/nonexistent/dir/x.parquet'],
      /^tds: SQL: IO Error: .*x\.parquet\.partial.*\nhint: check that the folder of -o FILE exists and can be written$/m,
    ],
    [
      'a name with spaces left unquoted',
      ['SELECT Last Contacted FROM leads'],
      /^tds: SQL: Binder Error: Referenced column "Last" not found in FROM clause!\nhint: a name with spaces needs double quotes: "Last Contacted"$/m,
    ],
    [
      'a name with spaces left unquoted in WHERE',
      ['SELECT Name FROM leads WHERE Last Contacted > now()'],
      /\nhint: a name with spaces needs double quotes: "Last Contacted"$/m,
    ],
    ['a misspelt column', ['SELECT Stage, count(*) FROM leads GROUP BY Stag'], /\nhint: did you mean "Stage"\?$/m],
    ['a misspelt table', ['SELECT * FROM leds'], /\nhint: did you mean leads\?; SHOW TABLES lists/m],
  ])('%s exits 2 with what was wrong', async (_what, args, message) => {
    const result = await harness.tds(['sql', ...args]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});
