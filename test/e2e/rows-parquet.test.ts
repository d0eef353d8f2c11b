import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import type { Field, Row } from '../../src/service/index.js';
import { columnTypes, readParquet } from '../export/parquet-file.js';
import { expectedMirrorValue } from '../mirror/helpers.js';
import { exists, spawnedHarness, waitUntil } from './export-support.js';
import { emulatorRequests, type Target } from './read-support.js';
import { EDGE_KEYS, LEADS_KEYS, allRows, parseNdjson, schemaOf, tableNamed, type Rec } from './rows-support.js';
import { test as it } from '../helpers/emulator-fixture.js';
import { RATE_SCALE } from '../helpers/rate-scale.js';

// `tds rows|query … -o FILE.parquet` end to end: the file read back by DuckDB equals the NDJSON export
// value by value, with the mirror's types; the refusals; and exports interrupted by a failure, SIGINT or
// SIGKILL, resumed into files equal to uninterrupted ones.

const { emulator, tds, tempDir } = spawnedHarness('rows-parquet-');
/** The position a later `pagesServedSince` counts from. */
const logMark = async (target: Target) => (await emulatorRequests(target)).length;
/**
 * Row pages served (200) since a mark: a resumed process cannot know the window a killed one used,
 * so a 429 and its retry are allowed and not counted.
 */
const pagesServedSince = async (target: Target, mark: number) =>
  (await emulatorRequests(target)).slice(mark).filter((entry) => /\/rows(\?|$)/.test(entry.path) && entry.status === 200).length;

/** The Parquet type of a column type, as docs/cli.md "Sync" (column types) lists them (written out here, not taken from src). */
const PARQUET_TYPE: Record<string, string> = {
  number: 'DOUBLE',
  boolean: 'BOOLEAN',
  date: 'TIMESTAMP WITH TIME ZONE',
  multi_select: 'VARCHAR[]',
  member: 'JSON',
  object: 'JSON',
  webhook: 'JSON',
  formula: 'JSON',
  action: 'JSON',
};

/** The columns docs/cli.md describes: meta keys, one per field (status and error after an action column), _truncated. */
function expectedColumns(fields: Field[], keys: string[]): string[] {
  const columns = ['_id VARCHAR', '_createdAt TIMESTAMP WITH TIME ZONE', '_updatedAt TIMESTAMP WITH TIME ZONE', '_createdByUserId VARCHAR'];
  fields.forEach((field, i) => {
    columns.push(`${keys[i]} ${PARQUET_TYPE[field.type] ?? 'VARCHAR'}`);
    if (field.type === 'action') columns.push(`${keys[i]}.status VARCHAR`, `${keys[i]}.error VARCHAR`);
  });
  return [...columns, '_truncated VARCHAR[]'];
}

/** Each Parquet row equals its NDJSON record, value by value, as the mirror types it; `_truncated` names the cut cells. */
function expectEqualToNdjson(
  parquet: Array<Record<string, unknown>>,
  ndjson: Rec[],
  context: { fields: Field[]; keys: string[]; rows: Row[] },
): void {
  expect(parquet.map((row) => row._id)).toEqual(ndjson.map((record) => record._id));
  const typeOf = new Map(context.fields.map((field, i) => [context.keys[i]!, field.type]));
  const keyOf = new Map(context.fields.map((field, i) => [field.id, context.keys[i]!]));
  const rowsById = new Map(context.rows.map((row) => [row.id, row]));
  ndjson.forEach((record, i) => {
    const row = parquet[i]!;
    const where = (key: string): string => `${String(record._id)} ${key}`;
    for (const [key, value] of Object.entries(record)) {
      if (key === '_createdAt' || key === '_updatedAt') expect(row[key], where(key)).toBe(new Date(value as string).toISOString());
      else if (typeOf.has(key)) expect(row[key], where(key)).toEqual(expectedMirrorValue(typeOf.get(key), value));
      else if (key.endsWith('.error'))
        expect(row[key], where(key)).toBe(value === null || typeof value === 'string' ? value : JSON.stringify(value));
      else expect(row[key], where(key)).toEqual(value);
    }
    const cut = Object.entries(rowsById.get(String(record._id))!.cells)
      .filter(([, cell]) => cell.isTruncated === true)
      .map(([fieldId]) => keyOf.get(fieldId));
    expect(row._truncated, where('_truncated')).toEqual(cut.length > 0 ? cut : null);
  });
}

describe('tds rows -o FILE.parquet', () => {
  it.each([
    ['Leads', LEADS_KEYS],
    ['Edge Cases', EDGE_KEYS],
  ])('%s: read back by DuckDB, equal to the NDJSON export value by value, with the mirror types', async (name, keys) => {
    const table = await tableNamed(emulator, name);
    const [fields, rows] = await Promise.all([schemaOf(emulator, table.id), allRows(emulator, table.id)]);
    const file = join(await tempDir(), 'out.parquet');
    const [written, ndjson] = await Promise.all([
      tds(['rows', name, '-o', file]),
      tds(['rows', name, '--format', 'ndjson', '--status-columns']),
    ]);
    expect(written.code, written.stderr).toBe(0);
    expect(ndjson.code).toBe(0);
    const parquet = await readParquet(file);
    expect(columnTypes(parquet)).toEqual(expectedColumns(fields, keys));
    expectEqualToNdjson(parquet.rows, parseNdjson(ndjson.stdout), { fields, keys, rows });
    // the cut cells are counted at the end, as for every format
    if (name === 'Edge Cases') expect(written.stderr).toMatch(/^tds: warning: \d+ cells? (was|were) cut by the service at 200 characters/m);
  });

  it('query with --columns, --no-meta and --header name: those columns only, keyed by name, the rows that match', async () => {
    const dir = await tempDir();
    const args = ['query', 'Leads', '--where', 'Employees >= 1000', '--columns', 'Name,Enrich,Stage', '--no-meta', '--header', 'name'];
    const [written, ndjson] = await Promise.all([
      tds([...args, '-o', join(dir, 'big.parquet')]),
      tds([...args, '--format', 'ndjson', '--status-columns']),
    ]);
    expect(written.code, written.stderr).toBe(0);
    const parquet = await readParquet(join(dir, 'big.parquet'));
    expect(parquet.columns.map((column) => column.name)).toEqual([
      'name',
      'enrich',
      'enrich.status',
      'enrich.error',
      'stage',
      '_truncated',
    ]);
    const records = parseNdjson(ndjson.stdout);
    expect(records.length).toBeGreaterThan(10);
    expect(parquet.rows.map((row) => [row.name, row.stage, row['enrich.status']])).toEqual(
      records.map((record) => [record.name, record.stage, record['enrich.status']]),
    );
  });

  it.each([
    [
      ['rows', 'Leads', '--format', 'parquet'],
      /^tds: parquet needs -o FILE: it is a binary format, never written to a terminal or a pipe\nhint: e\.g\. tds rows Leads -o leads\.parquet$/m,
    ],
    [['query', 'Leads', '--format', 'parquet', '-o', '-'], /^hint: e\.g\. tds query Leads -o leads\.parquet$/m],
    [
      ['rows', 'Leads', '-o', 'OUT/x.parquet', '--follow'],
      /^tds: --follow writes rows as they appear, which a Parquet file \(written whole at the end\) cannot do$/m,
    ],
    [['rows', 'Leads', '-o', 'OUT/x.parquet', '--excel'], /^tds: --excel applies to csv and tsv output, not parquet$/m],
    [['rows', 'Leads', '-o', 'OUT/x.parquet', '--join', ';'], /^tds: --join applies to csv and tsv output, not parquet$/m],
    [['rows', 'Leads', '-o', 'OUT/x.parquet', '--cells', 'raw'], /^tds: --cells raw cannot be written as parquet/m],
  ])('%j exits 2 before reading any row, and writes nothing', async (args, message) => {
    const dir = await tempDir();
    const before = (await emulatorRequests(emulator)).length;
    const result = await tds(args.map((arg) => arg.replace('OUT', dir)));
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stdout).toBe('');
    expect(await readdir(dir)).toEqual([]);
    expect((await emulatorRequests(emulator)).slice(before).filter((entry) => /\/rows/.test(entry.path))).toEqual([]);
  });
});

describe('tds rows -o FILE.parquet: interrupted and resumed', () => {
  it('after retries run out (exit 6), --resume finishes a file equal to an uninterrupted export', async ({ open }) => {
    // Read requests: 1 tables, 2 schema, 3-4 pages one and two, 5-7 page three and its two retries.
    const faulty = await open({ spawned: { args: ['--read-faults', '500@5-7'] } });
    const run = faulty.tds;
    const dir = await tempDir();
    const file = join(dir, 'leads.parquet');
    const failed = await run(['rows', 'Leads', '--page-size', '20', '-o', file, '--max-retries', '2']);
    expect(failed.code).toBe(6);
    expect(failed.stderr).toMatch(/hint: .*40 rows are in .*leads\.parquet\.tds-staging\.duckdb: run the same command again with --resume/);
    expect((await readdir(dir)).sort()).toEqual([
      'leads.parquet.tds-checkpoint',
      'leads.parquet.tds-staging.duckdb',
      'leads.parquet.tds-staging.duckdb.wal',
    ]);

    const before = await logMark(faulty);
    const resumed = await run(['rows', 'Leads', '--page-size', '20', '-o', file, '--resume']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(await pagesServedSince(faulty, before)).toBe(11); // pages 3-13 of 250 rows
    expect(await readdir(dir)).toEqual(['leads.parquet']);
    const whole = join(dir, 'whole.parquet');
    expect((await run(['rows', 'Leads', '-o', whole])).code).toBe(0);
    expect(await readParquet(file)).toEqual(await readParquet(whole));
  });

  it('after SIGINT (exit 130, staging file and checkpoint kept), --resume finishes a file equal to an uninterrupted export', async ({
    open,
  }) => {
    // The fifth read request (page three) never gets an answer, so the export is surely mid-way when interrupted.
    const stalling = await open({ spawned: { args: ['--read-faults', 'stall@5'] } });
    const dir = await tempDir();
    const file = join(dir, 'leads.parquet');
    // on a terminal the progress line says when both pages before the stall are written
    const run = stalling.spawn(['rows', 'Leads', '--page-size', '20', '-o', file], { env: { TDS_FORCE_TTY: '1' } });
    await waitUntil(() => /\b40 rows ·/.test(run.stderr()), 15_000, 'two pages written');
    // rows are committed to the staging file about once a second: these are not yet, and no checkpoint counts them
    expect(await exists(`${file}.tds-checkpoint`)).toBe(false);
    run.child.kill('SIGINT');
    expect(await run.exit).toBe(130);
    expect(run.stderr()).toMatch(
      /the export stopped after 40 rows; .*leads\.parquet\.tds-staging\.duckdb and .*leads\.parquet\.tds-checkpoint are kept\nhint: run the same command again with --resume/,
    );
    // Ctrl-C committed them first: the checkpoint counts all 40
    expect(JSON.parse(await readFile(`${file}.tds-checkpoint`, 'utf8'))).toMatchObject({
      rows: 40,
      bytes: 40,
      cursor: expect.any(String),
    });

    const again = stalling.tds;
    const before = await logMark(stalling);
    const resumed = await again(['rows', 'Leads', '--page-size', '20', '-o', file, '--resume']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(await pagesServedSince(stalling, before)).toBe(11);
    const whole = join(dir, 'whole.parquet');
    expect((await again(['rows', 'Leads', '-o', whole])).code).toBe(0);
    expect(await readParquet(file)).toEqual(await readParquet(whole));
    expect((await readdir(dir)).sort()).toEqual(['leads.parquet', 'whole.parquet']);
  });

  it('after SIGKILL mid-export under the rate limit, --resume finishes a file equal to an uninterrupted export', async ({ open }) => {
    // 100 pages of 15 rows at 60 requests a 3-second window (a fifth of the suite's rate scale, on both
    // sides): the burst, then 20 pages a second, so that the kill lands mid-export.
    const limited = await open({ rateScale: RATE_SCALE / 5, spawned: { args: ['--rows', '1500'] } });
    const dir = await tempDir();
    const file = join(dir, 'generated.parquet');
    const args = ['rows', 'Generated', '--page-size', '15', '-o', file];
    const run = limited.spawn(args);
    await waitUntil(() => exists(`${file}.tds-checkpoint`), 15_000, 'a checkpoint');
    run.child.kill('SIGKILL');
    await run.exit;
    const checkpoint = JSON.parse(await readFile(`${file}.tds-checkpoint`, 'utf8')) as { rows: number; done: boolean };
    expect(checkpoint.done).toBe(false);
    expect(checkpoint.rows).toBeGreaterThan(0);
    expect(await exists(file)).toBe(false);

    const again = limited.tds;
    const before = await logMark(limited);
    const resumed = await again([...args, '--resume']);
    expect(resumed.code, resumed.stderr).toBe(0);
    // continued from the checkpoint: only the pages after it were read again
    expect(await pagesServedSince(limited, before)).toBe(100 - checkpoint.rows / 15);
    const whole = join(dir, 'whole.parquet');
    expect((await again(['rows', 'Generated', '-o', whole])).code).toBe(0);
    const [got, want] = await Promise.all([readParquet(file), readParquet(whole)]);
    expect(got.rows).toHaveLength(1500);
    expect(got).toEqual(want);
    expect((await readdir(dir)).sort()).toEqual(['generated.parquet', 'whole.parquet']);
  });
});
