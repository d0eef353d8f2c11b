import { mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { describe, expect } from 'vitest';
import { readParquet } from '../export/parquet-file.js';
import type { RunResult } from '../helpers/cli.js';
import { test as it, type Harness } from '../helpers/emulator-fixture.js';
import { parseNdjson } from './rows-support.js';

// Regression (issue 20, items 4 and 5): labels that differ only in case, that equal a generated key
// (`_truncated`, `_syncId`, an action column's `<key>.status`), or that name an object's prototype
// (`__proto__`, `constructor`, `toString`) get the same keys in NDJSON, JSON, CSV, Parquet and the
// mirror, with every value; such a table neither fails a Parquet export (no staging file is left) nor
// aborts `tds sync --all`. The commands run in this process against an emulator in this process (the fixture's harness).

/** The table's columns, in schema order; `Enrich` is an action column, the others text. */
const LABELS = ['Email', 'email', '_truncated', 'Enrich', 'Enrich.status', '__proto__', 'constructor', 'toString', '_syncId'];
/** The keys docs/cli.md "Row records" gives them (written out here, not taken from src), status keys after the action column. */
const FIELD_KEYS = [
  'Email',
  'email (2)',
  '_truncated (2)',
  'Enrich',
  'Enrich.status',
  'Enrich.error',
  'Enrich.status (2)',
  '__proto__',
  'constructor',
  'toString',
  '_syncId (2)',
];
const META = ['_id', '_createdAt', '_updatedAt', '_createdByUserId'];
const ROWS = 3;

/** Row i's values by key: each text cell its own text, the action cell failed with an error. */
function expectedValues(i: number): Record<string, unknown> {
  const values: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const key of FIELD_KEYS) values[key] = `${key} #${i}`;
  values.Enrich = null;
  values['Enrich.status'] = 'failed';
  values['Enrich.error'] = `no credits #${i}`;
  return values;
}

let harness: Harness;
let tableId: string;

/** `tds ARGS` in this process, as main() runs it. */
const tds = (args: string[]): Promise<RunResult> => harness.tds(args);

it.beforeAll(async ({ harness: fileHarness }) => {
  harness = fileHarness;
  const created = await harness.admin<{ table: { id: string }; fields: Array<{ id: string }> }>('POST', '/tables', {
    workspace: 'Sales',
    name: 'Odd Labels',
    fields: LABELS.map((label) => ({ label, type: label === 'Enrich' ? 'action' : 'text' })),
  });
  tableId = created.table.id;
  const ids = created.fields.map((field) => field.id);
  const textKeys = FIELD_KEYS.filter((key) => !['Enrich', 'Enrich.status', 'Enrich.error'].includes(key));
  const textIds = ids.filter((_, i) => LABELS[i] !== 'Enrich');
  const enrichId = ids[LABELS.indexOf('Enrich')]!;
  const rows = Array.from({ length: ROWS }, (_, i) => ({
    createdAt: new Date(Date.UTC(2024, 0, 1 + i)).toISOString(),
    cells: {
      ...Object.fromEntries(textIds.map((id, k) => [id, `${textKeys[k]} #${i}`])),
      [enrichId]: { status: 'failed', errorMessage: `no credits #${i}` },
    },
  }));
  // cells keyed by field ID: the labels are what is under test, not the admin route's lookup by label
  await harness.admin('POST', `/tables/${tableId}/rows`, { rows });
});

/** Records in creation order (newest first is the service's order), as objects that keep a `__proto__` key. */
const byCreation = (records: Array<Record<string, unknown>>): Array<Record<string, unknown>> =>
  [...records].sort((a, b) => String(a._createdAt ?? a._id).localeCompare(String(b._createdAt ?? b._id)));

function expectRecords(records: Array<Record<string, unknown>>, keys: string[]): void {
  expect(records).toHaveLength(ROWS);
  byCreation(records).forEach((record, i) => {
    expect(Object.keys(record)).toEqual(keys);
    const expected = expectedValues(i);
    for (const key of FIELD_KEYS) expect(record[key], `${key} of row ${i}`).toEqual(expected[key]);
  });
}

describe('odd labels: one set of keys in every output, every value kept', () => {
  const exportArgs = () => ['rows', tableId, '--status-columns'];

  it('NDJSON and JSON', async () => {
    const ndjson = await tds([...exportArgs(), '--format', 'ndjson']);
    expect(ndjson.code, ndjson.stderr).toBe(0);
    expectRecords(parseNdjson(ndjson.stdout), [...META, ...FIELD_KEYS]);
    const json = await tds([...exportArgs(), '--format', 'json']);
    expect(json.code, json.stderr).toBe(0);
    expectRecords(JSON.parse(json.stdout) as Array<Record<string, unknown>>, [...META, ...FIELD_KEYS]);
  });

  it('CSV', async () => {
    const csv = await tds([...exportArgs(), '--format', 'csv']);
    expect(csv.code, csv.stderr).toBe(0);
    const [header, ...lines] = parse(csv.stdout) as string[][];
    expect(header).toEqual([...META, ...FIELD_KEYS]);
    const records = lines.map((line) => Object.fromEntries(header!.map((key, k) => [key, line[k] === '' ? null : line[k]])));
    expectRecords(records, [...META, ...FIELD_KEYS]);
  });

  it('Parquet, with no staging file left', async () => {
    const out = join(harness.dir, 'parquet');
    await mkdir(out);
    const file = join(out, 'odd.parquet');
    const result = await tds(['rows', tableId, '-o', file]);
    expect(result.code, result.stderr).toBe(0);
    expect(await readdir(out)).toEqual(['odd.parquet']);
    const parquet = await readParquet(file);
    expect(parquet.columns.map((column) => column.name)).toEqual([...META, ...FIELD_KEYS, '_truncated']);
    expectRecords(
      parquet.rows.map(({ _truncated: truncated, ...rest }) => (expect(truncated).toBeNull(), rest)),
      [...META, ...FIELD_KEYS],
    );
  });

  it('the mirror, through `tds sync --all` (every table synced, none aborted)', async () => {
    const db = harness.db;
    const sync = await tds(['sync', '--all', '--db', db, '--json']);
    expect(sync.code, sync.stderr).toBe(0);
    const summary = JSON.parse(sync.stdout) as { tables: Array<{ tableId?: string; mirrorTable: string; complete?: boolean }> };
    const tables = await tds(['tables', '--format', 'json']);
    expect(summary.tables).toHaveLength((JSON.parse(tables.stdout) as unknown[]).length);
    expect(summary.tables.map((table) => table.mirrorTable)).toContain('odd_labels');

    const columns = await tds([
      'sql',
      `SELECT column_name FROM information_schema.columns WHERE table_name = 'odd_labels' ORDER BY ordinal_position`,
      '--db',
      db,
      '--format',
      'ndjson',
    ]);
    expect(columns.code, columns.stderr).toBe(0);
    const names = columns.stdout
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { column_name: string }).column_name)
      .filter((name) => name !== '_truncated' && name !== '_syncId');
    expect(names).toEqual([...META, ...FIELD_KEYS]);
    const select = names.map((name) => `"${name.replace(/"/g, '""')}"`).join(', ');
    const rows = await tds(['sql', `SELECT ${select} FROM odd_labels`, '--db', db, '--format', 'ndjson']);
    expect(rows.code, rows.stderr).toBe(0);
    expectRecords(parseNdjson(rows.stdout), [...META, ...FIELD_KEYS]);
  });
});
