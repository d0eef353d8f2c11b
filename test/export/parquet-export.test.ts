import { readdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { describe, expect } from 'vitest';
import { runExport } from '../../src/export/run-export.js';
import { context, tempFile, useTempFolder } from './export-fixtures.js';
import { columnTypes, META_COLUMN_TYPES, readParquet } from './parquet-file.js';
import { parquetRequest, table, tableService } from './parquet-fixtures.js';
import { test as it } from '../helpers/emulator-fixture.js';

it.beforeEach(({ tmp }) => useTempFolder(tmp));

// `--format parquet` in process, against a table of every kind of column served in pages, with the real
// DuckDB: the file read back by DuckDB, the row order across commits, and --on-truncated error.
// Resumes: parquet-resume.test.ts.

describe('tds rows --format parquet', () => {
  it("writes the mirror's typed columns and every row in the service's order; values that do not fit are NULL and counted", async () => {
    const path = await tempFile('out.parquet');
    const { ctx, stderr } = context();
    const summary = await runExport(ctx, tableService().fetchPage, parquetRequest(path));
    expect(summary).toMatchObject({ rows: 23, truncatedCells: 5 });
    const file = await readParquet(path);
    expect(columnTypes(file)).toEqual([
      ...META_COLUMN_TYPES,
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

  it('keeps the row order across several commits', async () => {
    const path = await tempFile('out.parquet');
    // a pause longer than the commit interval before pages 2 and 4: three commits in all
    const svc = tableService({ delay: (call) => (call === 2 || call === 4 ? 1100 : 0) });
    await runExport(context().ctx, svc.fetchPage, parquetRequest(path, { pageSize: 4 }));
    expect((await readParquet(path)).rows.map((row) => row._id)).toEqual(table.map((row) => row.id));
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
});
