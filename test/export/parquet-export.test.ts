import { readFile, readdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { TdsError } from '../../src/core/errors.js';
import { checkpointPath, type Checkpoint } from '../../src/export/checkpoint.js';
import type { ExportRequest } from '../../src/export/export-request.js';
import { runExport } from '../../src/export/run-export.js';
import { stagingPath } from '../../src/parquet/staging-files.js';
import type { Field, Row } from '../../src/service/index.js';
import { context, request, service, tempFile, type Service } from './export-fixtures.js';
import { readParquet } from './parquet-file.js';

// `--format parquet` in process, against a table of every kind of column served in pages, with the real
// DuckDB: the file read back by DuckDB, resumes after a failure and after a checkpoint that lags the
// staging file, --on-truncated error, and staging files a resume cannot use.

const fields: Field[] = [
  { id: 'f_name', name: 'name', label: 'Name', type: 'text', options: null, isSystem: false },
  { id: 'f_amount', name: 'amount', label: 'Amount', type: 'number', options: null, isSystem: false },
  { id: 'f_active', name: 'active', label: 'Active', type: 'boolean', options: null, isSystem: false },
  { id: 'f_due', name: 'due', label: 'Due', type: 'date', options: null, isSystem: false },
  {
    id: 'f_stage',
    name: 'stage',
    label: 'Stage',
    type: 'select',
    options: [
      { label: 'New', value: 'new' },
      { label: 'Won', value: 'won' },
    ],
    isSystem: false,
  },
  {
    id: 'f_tags',
    name: 'tags',
    label: 'Tags',
    type: 'multi_select',
    options: [
      { label: 'VIP', value: 'vip' },
      { label: 'SMB', value: 'smb' },
    ],
    isSystem: false,
  },
  { id: 'f_address', name: 'address', label: 'Address', type: 'object', options: null, isSystem: false },
  { id: 'f_enrich', name: 'enrich', label: 'Enrich', type: 'action', options: null, isSystem: false },
  { id: 'f_notes', name: 'notes', label: 'Notes', type: 'text', options: null, isSystem: false },
  { id: 'f_created', name: 'created_at', label: 'Created At', type: 'date', options: null, isSystem: true },
];

const created = (i: number): string => new Date(Date.UTC(2024, 0, 1, 0, 0, i)).toISOString();

/** Row i: a value of every type; Amount every 7th row and Due every 11th are text that does not fit; Notes cut every 5th. */
function typedRow(i: number): Row {
  return {
    id: `row_${String(i).padStart(3, '0')}`,
    tableId: 'tbl_1',
    createdAt: created(i),
    updatedAt: created(i + 1),
    createdByUserId: i % 2 ? 'usr_1' : null,
    cells: {
      f_name: { value: i === 4 ? `half \ud83d of an emoji` : `Name ${i}, "quoted"` },
      f_amount: { value: i % 7 === 0 ? 'n/a' : i * 1.5 },
      f_active: { value: i % 3 === 0 },
      f_due: { value: i % 11 === 0 ? 'someday' : `2025-0${1 + (i % 9)}-1${i % 10}` },
      f_stage: { value: i % 2 ? 'new' : 'won' },
      f_tags: { value: i % 4 ? ['vip'] : ['vip', 'smb'] },
      f_address: { value: { city: `City ${i}`, zip: 10_000 + i } },
      f_enrich:
        i % 3 === 1 ? { status: 'failed', errorMessage: `no domain ${i}` } : { status: 'success', value: { domain: `d${i}.example` } },
      ...(i % 5 === 0 ? { f_notes: { value: null, valuePreview: 'n'.repeat(200), isTruncated: true } } : {}),
      f_created: { value: created(i) },
    },
  };
}

const table: Row[] = Array.from({ length: 23 }, (_, i) => typedRow(i));

function parquetRequest(output: string, overrides: Partial<ExportRequest> = {}): ExportRequest {
  return request({ fields, format: 'parquet', output, table: { ...request().table, rowCount: table.length }, ...overrides });
}

const tableService = (options: { fail?: (call: number) => Error | undefined; delay?: (call: number) => number } = {}): Service => {
  const inner = service(() => table);
  let calls = 0;
  return {
    calls: inner.calls,
    fetchPage: async (cursor, limit) => {
      calls += 1;
      const wait = options.delay?.(calls) ?? 0;
      if (wait > 0) await sleep(wait);
      const failure = options.fail?.(calls);
      if (failure) throw failure;
      return inner.fetchPage(cursor, limit);
    },
  };
};

const gaveUp = (): TdsError => new TdsError('GAVE_UP', 'read rows: gave up after 3 attempts (HTTP 500)', { status: 500 });

async function wholeExport(overrides: Partial<ExportRequest> = {}): Promise<string> {
  const path = await tempFile('whole.parquet');
  await runExport(context().ctx, tableService().fetchPage, parquetRequest(path, overrides));
  return path;
}

describe('tds rows --format parquet', () => {
  it("writes the mirror's typed columns and every row in the service's order; values that do not fit are NULL and counted", async () => {
    const path = await tempFile('out.parquet');
    const { ctx, stderr } = context();
    const summary = await runExport(ctx, tableService().fetchPage, parquetRequest(path));
    expect(summary).toMatchObject({ rows: 23, truncatedCells: 5 });
    const file = await readParquet(path);
    expect(file.columns.map((column) => `${column.name} ${column.type}`)).toEqual([
      '_id VARCHAR',
      '_createdAt TIMESTAMP WITH TIME ZONE',
      '_updatedAt TIMESTAMP WITH TIME ZONE',
      '_createdByUserId VARCHAR',
      'Name VARCHAR',
      'Amount DOUBLE',
      'Active BOOLEAN',
      'Due TIMESTAMP WITH TIME ZONE',
      'Stage VARCHAR',
      'Tags VARCHAR[]',
      'Address JSON',
      'Enrich JSON',
      'Enrich.status VARCHAR',
      'Enrich.error VARCHAR',
      'Notes VARCHAR',
      'Created At TIMESTAMP WITH TIME ZONE',
      '_truncated VARCHAR[]',
    ]);
    expect(file.rows.map((row) => row._id)).toEqual(table.map((row) => row.id));
    expect(file.rows[1]).toEqual({
      _id: 'row_001',
      _createdAt: '2024-01-01T00:00:01.000Z',
      _updatedAt: '2024-01-01T00:00:02.000Z',
      _createdByUserId: 'usr_1',
      Name: 'Name 1, "quoted"',
      Amount: 1.5,
      Active: false,
      Due: '2025-02-11T00:00:00.000Z',
      Stage: 'New',
      Tags: ['VIP'],
      Address: { city: 'City 1', zip: 10_001 },
      Enrich: null,
      'Enrich.status': 'failed',
      'Enrich.error': 'no domain 1',
      Notes: null,
      'Created At': '2024-01-01T00:00:01.000Z',
      _truncated: null,
    });
    expect(file.rows[0]).toMatchObject({ Amount: null, Due: null, Tags: ['VIP', 'SMB'], Notes: 'n'.repeat(200), _truncated: ['Notes'] });
    expect(file.rows[0]!.Enrich).toEqual({ domain: 'd0.example' });
    // a lone surrogate is not valid Unicode: written with U+FFFD in its place rather than refused
    expect(file.rows[4]!.Name).toBe('half \ufffd of an emoji');
    expect(stderr()).toContain('tds: warning: 7 values do not fit the column\'s type and were written as NULL: "Amount" 4, "Due" 3');
    expect(stderr()).toContain('5 cells were cut by the service at 200 characters (the cut text was kept): "Notes" 5');
    expect(await readdir(dirname(path))).toEqual(['out.parquet']);
  });

  it('keeps the row order across several commits, the two inboxes taking turns', async () => {
    const path = await tempFile('out.parquet');
    // a pause longer than the commit interval before pages 2 and 4: three commits in all
    const svc = tableService({ delay: (call) => (call === 2 || call === 4 ? 1100 : 0) });
    await runExport(context().ctx, svc.fetchPage, parquetRequest(path, { pageSize: 4 }));
    expect((await readParquet(path)).rows.map((row) => row._id)).toEqual(table.map((row) => row.id));
  });

  it('resumes after retries ran out into a file equal to an uninterrupted export, counting what both runs found', async () => {
    const path = await tempFile('out.parquet');
    const first = await runExport(
      context().ctx,
      tableService({ fail: (call) => (call === 3 ? gaveUp() : undefined) }).fetchPage,
      parquetRequest(path),
    ).catch((error: unknown) => error);
    expect(first).toMatchObject({
      code: 'GAVE_UP',
      hint: expect.stringMatching(/10 rows are in .*out\.parquet\.tds-staging\.duckdb: run the same command again with --resume/),
    });
    expect((await readdir(dirname(path))).sort()).toEqual([
      'out.parquet.tds-checkpoint',
      'out.parquet.tds-staging.duckdb',
      'out.parquet.tds-staging.duckdb.wal',
    ]);
    const checkpoint = JSON.parse(await readFile(checkpointPath(path), 'utf8')) as Checkpoint;
    expect(checkpoint).toMatchObject({ rows: 10, bytes: 10, cursor: '10', unfit: { Amount: 2, Due: 1 } });

    const { ctx, stderr } = context();
    const svc = tableService();
    const summary = await runExport(ctx, svc.fetchPage, parquetRequest(path, { resume: true }));
    expect(svc.calls[0]?.cursor).toBe('10');
    expect(summary.truncatedCells).toBe(5);
    expect(stderr()).toContain('7 values do not fit');
    expect((await readParquet(path)).rows).toEqual((await readParquet(await wholeExport())).rows);
    expect(await readdir(dirname(path))).toEqual(['out.parquet']);
  });

  it('a checkpoint that lags the staging file: --resume cuts the staging file back to the rows the checkpoint counts', async () => {
    const path = await tempFile('out.parquet');
    await runExport(
      context().ctx,
      tableService({ fail: (call) => (call === 4 ? gaveUp() : undefined) }).fetchPage,
      parquetRequest(path),
    ).catch(() => undefined);
    const checkpoint = JSON.parse(await readFile(checkpointPath(path), 'utf8')) as Checkpoint;
    expect(checkpoint.rows).toBe(15);
    // as if the process had been killed after the commit of rows 10-14, before the checkpoint that counts them was written
    const lagging: Checkpoint = {
      ...checkpoint,
      rows: 10,
      bytes: 10,
      cursor: '10',
      lastPageIds: table.slice(5, 10).map((row) => row.id),
      truncated: { service: { Notes: 2 }, spreadsheet: {} },
      unfit: { Amount: 2, Due: 1 },
    };
    await writeFile(checkpointPath(path), JSON.stringify(lagging));

    const svc = tableService();
    await runExport(context().ctx, svc.fetchPage, parquetRequest(path, { resume: true }));
    expect(svc.calls[0]?.cursor).toBe('10');
    const rows = (await readParquet(path)).rows;
    expect(rows.map((row) => row._id)).toEqual(table.map((row) => row.id)); // rows 10-14 once, not twice
    expect(rows).toEqual((await readParquet(await wholeExport())).rows);
  });

  it('a done checkpoint beside FILE is a completed export only once the staging file is gone (it is removed after the rename)', async () => {
    const path = await tempFile('out.parquet');
    await runExport(context().ctx, tableService().fetchPage, parquetRequest(path)); // FILE from an earlier export
    await runExport(
      context().ctx,
      tableService({ fail: (call) => (call === 3 ? gaveUp() : undefined) }).fetchPage,
      parquetRequest(path),
    ).catch(() => undefined);
    // as if killed after the checkpoint of the last page, before the copy and the rename: FILE is still the old one
    const checkpoint = JSON.parse(await readFile(checkpointPath(path), 'utf8')) as Checkpoint;
    await writeFile(checkpointPath(path), JSON.stringify({ ...checkpoint, done: true, cursor: null }));

    const { ctx, stderr } = context();
    await runExport(ctx, tableService().fetchPage, parquetRequest(path, { resume: true }));
    expect(stderr()).not.toMatch(/already complete/);
    expect((await readParquet(path)).rows.map((row) => row._id)).toEqual(table.slice(0, 10).map((row) => row.id)); // the staged rows, copied out
    expect(await readdir(dirname(path))).toEqual(['out.parquet']);
  });

  it('--on-truncated error exits 8 and leaves FILE.partial, a whole Parquet file, without the staging file', async () => {
    const path = await tempFile('out.parquet');
    const error = await runExport(context().ctx, tableService().fetchPage, parquetRequest(path, { onTruncated: 'error' })).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: 'TRUNCATED', message: expect.stringMatching(/the output is left in .*out\.parquet\.partial$/) });
    expect(await readdir(dirname(path))).toEqual(['out.parquet.partial']);
    expect((await readParquet(`${path}.partial`)).rows).toHaveLength(23);
  });

  it('refuses to resume from a staging file that is missing, not DuckDB, or of other columns (exit 2, --restart)', async () => {
    const interrupted = async (): Promise<string> => {
      const path = await tempFile('out.parquet');
      await runExport(
        context().ctx,
        tableService({ fail: (call) => (call === 3 ? gaveUp() : undefined) }).fetchPage,
        parquetRequest(path),
      ).catch(() => undefined);
      return path;
    };
    const resume = (path: string): Promise<unknown> =>
      runExport(context().ctx, tableService().fetchPage, parquetRequest(path, { resume: true })).catch((e: unknown) => e);

    const missing = await interrupted();
    await writeFile(stagingPath(missing), '');
    await import('node:fs/promises').then(({ unlink }) => unlink(stagingPath(missing)));
    expect(await resume(missing)).toMatchObject({
      code: 'USAGE',
      message: expect.stringMatching(/staging file .* is missing/),
      hint: 'start the export over with --restart',
    });

    const garbage = await interrupted();
    await writeFile(stagingPath(garbage), 'not a database');
    await import('node:fs/promises').then(({ unlink }) => unlink(`${stagingPath(garbage)}.wal`));
    expect(await resume(garbage)).toMatchObject({ code: 'USAGE', message: expect.stringMatching(/staging file .* cannot be opened/) });

    // the staging file of an export of other columns, beside this export's checkpoint
    const other = await tempFile('other.parquet');
    await runExport(
      context().ctx,
      tableService({ fail: (call) => (call === 3 ? gaveUp() : undefined) }).fetchPage,
      parquetRequest(other, { shape: { ...request().shape, meta: false } }),
    ).catch(() => undefined);
    const mixed = await interrupted();
    for (const suffix of ['', '.wal']) await writeFile(`${stagingPath(mixed)}${suffix}`, await readFile(`${stagingPath(other)}${suffix}`));
    expect(await resume(mixed)).toMatchObject({
      code: 'USAGE',
      message: expect.stringMatching(/does not hold the columns of this export/),
    });

    // --restart starts over, whatever was left
    const svc = tableService();
    await runExport(context().ctx, svc.fetchPage, parquetRequest(mixed, { restart: true }));
    expect(svc.calls[0]?.cursor).toBeUndefined();
    expect(await readdir(dirname(mixed))).toEqual(['out.parquet']);
  });
});
