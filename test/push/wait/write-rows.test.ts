import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Cell, Field, Row } from '../../../src/service/index.js';
import { KeyedRowsFile, writePushedRows } from '../../../src/push/wait/write-rows.js';

const FIELDS: Field[] = [
  { id: 'f_created', name: 'created_at', label: 'Created', type: 'date', options: null, isSystem: true },
  { id: 'f_email', name: 'email', label: 'Email', type: 'email', options: null, isSystem: false },
  { id: 'f_enrich', name: 'enrich', label: 'Enrich', type: 'action', options: null, isSystem: false },
  { id: 'f_tier', name: 'tier', label: 'Tier', type: 'select', options: [{ label: 'Gold', value: 'opt_g' }], isSystem: false },
];

function row(id: string, email: string, enrich: Cell, extra: Record<string, Cell> = {}): Row {
  return {
    id,
    tableId: 't',
    createdAt: '2026-02-01T10:00:00.000Z',
    updatedAt: '2026-02-01T10:05:00.000Z',
    createdByUserId: null,
    cells: { f_created: { value: '2026-02-01T10:00:00.000Z' }, f_email: { value: email }, f_enrich: enrich, ...extra },
  };
}

let dir: string;
let store: KeyedRowsFile;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tds-write-rows-'));
  store = await KeyedRowsFile.create();
  await store.put('a@x.io', row('r1', 'A@x.io', { value: 'done', status: 'success' }, { f_tier: { value: 'opt_g' } }));
  await store.put('b@x.io', row('r2', 'b@x.io', { value: null, status: 'failed', errorMessage: 'no credits' }));
  await store.put(
    'c@x.io',
    row('r3', 'c@x.io', { value: 'x'.repeat(200), isTruncated: true, valuePreview: 'x'.repeat(200), status: 'success' }),
  );
});
afterEach(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

const HEADER = [
  '_id',
  '_createdAt',
  '_updatedAt',
  '_createdByUserId',
  'Created',
  'Email',
  'Enrich',
  'Enrich.status',
  'Enrich.error',
  'Tier',
];

describe('writePushedRows', () => {
  it('writes CSV: one row per key in input order, keys never seen left out, with the status columns', async () => {
    const path = join(dir, 'out.csv');
    const written = await writePushedRows(
      { path, format: 'csv', header: 'label' },
      FIELDS,
      ['c@x.io', 'missing@x.io', 'a@x.io', 'b@x.io'],
      store,
    );
    expect(written).toMatchObject({ path, format: 'csv', rows: 3, missing: 1 });
    const records = parse(await readFile(path, 'utf8'), { columns: false }) as string[][];
    expect(records[0]).toEqual(HEADER);
    expect(records.slice(1).map((record) => record[0])).toEqual(['r3', 'r1', 'r2']);
    const byId = Object.fromEntries(
      records.slice(1).map((record) => [record[0], Object.fromEntries(HEADER.map((key, i) => [key, record[i]]))]),
    );
    expect(byId.r1).toMatchObject({ Email: 'A@x.io', Enrich: 'done', 'Enrich.status': 'success', 'Enrich.error': '', Tier: 'Gold' });
    expect(byId.r2).toMatchObject({ Enrich: '', 'Enrich.status': 'failed', 'Enrich.error': 'no credits' });
    expect(byId.r3).toMatchObject({ _createdAt: '2026-02-01T10:00:00.000Z', _updatedAt: '2026-02-01T10:05:00.000Z' });
    // the cut cell is counted
    expect(written.cut.toJSON()).toEqual({ service: { Enrich: 1 }, spreadsheet: {} });
    // no partial file or lock is left beside it
    expect((await readdir(dir)).sort()).toEqual(['out.csv']);
  });

  it('writes NDJSON in the export record shape', async () => {
    const path = join(dir, 'out.ndjson');
    const written = await writePushedRows({ path, format: 'ndjson', header: 'label' }, FIELDS, ['b@x.io', 'a@x.io'], store);
    expect(written).toMatchObject({ rows: 2, missing: 0 });
    const lines = (await readFile(path, 'utf8'))
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.map((line) => line._id)).toEqual(['r2', 'r1']);
    expect(Object.keys(lines[1]!)).toEqual(HEADER);
    expect(lines[1]).toMatchObject({ Email: 'A@x.io', Enrich: 'done', 'Enrich.status': 'success', 'Enrich.error': null, Tier: 'Gold' });
    expect(lines[0]).toMatchObject({ Enrich: null, 'Enrich.status': 'failed', 'Enrich.error': 'no credits', Tier: null });
  });

  it('keys the columns by name when asked', async () => {
    const path = join(dir, 'out.csv');
    await writePushedRows({ path, format: 'csv', header: 'name' }, FIELDS, ['a@x.io'], store);
    const [header] = parse(await readFile(path, 'utf8')) as string[][];
    expect(header).toEqual([
      '_id',
      '_createdAt',
      '_updatedAt',
      '_createdByUserId',
      'created_at',
      'email',
      'enrich',
      'enrich.status',
      'enrich.error',
      'tier',
    ]);
  });

  it('writes only the header when no row showed, and replaces an earlier file', async () => {
    const path = join(dir, 'out.csv');
    await writeFile(path, 'old content\n');
    const written = await writePushedRows({ path, format: 'csv', header: 'label' }, FIELDS, ['nope@x.io'], store);
    expect(written).toMatchObject({ rows: 0, missing: 1 });
    expect((await readFile(path, 'utf8')).trim()).toBe(HEADER.join(','));
  });
});
