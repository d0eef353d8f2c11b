import { readFile, readdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { describe, expect } from 'vitest';
import { checkpointPath, type Checkpoint } from '../../src/export/checkpoint.js';
import type { ExportRequest } from '../../src/export/export-request.js';
import { runExport } from '../../src/export/run-export.js';
import { stagingPath } from '../../src/parquet/staging-files.js';
import { context, request, tempFile, useTempFolder } from './export-fixtures.js';
import { readParquet } from './parquet-file.js';
import { gaveUp, parquetRequest, table, tableService, wholeExport } from './parquet-fixtures.js';
import { test as it } from '../helpers/emulator-fixture.js';

it.beforeEach(({ tmp }) => useTempFolder(tmp));

// `--format parquet --resume` in process, with the real DuckDB: resumes after a failure and after a
// checkpoint that lags the staging file, a completed export told from one that is not, and staging
// files a resume cannot use.

/** An export to `output` whose service gives up (retries run out) on page request `call`; what it threw. */
const exportGivingUp = (output: string, call: number, overrides: Partial<ExportRequest> = {}): Promise<unknown> =>
  runExport(
    context().ctx,
    tableService({ fail: (n) => (n === call ? gaveUp() : undefined) }).fetchPage,
    parquetRequest(output, overrides),
  ).catch((error: unknown) => error);

describe('tds rows --format parquet --resume', () => {
  it('resumes after retries ran out into a file equal to an uninterrupted export, counting what both runs found', async () => {
    const path = await tempFile('out.parquet');
    const first = await exportGivingUp(path, 3);
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
    await exportGivingUp(path, 4);
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
    await exportGivingUp(path, 3);
    // as if killed after the checkpoint of the last page, before the copy and the rename: FILE is still the old one
    const checkpoint = JSON.parse(await readFile(checkpointPath(path), 'utf8')) as Checkpoint;
    await writeFile(checkpointPath(path), JSON.stringify({ ...checkpoint, done: true, cursor: null }));

    const { ctx, stderr } = context();
    await runExport(ctx, tableService().fetchPage, parquetRequest(path, { resume: true }));
    expect(stderr()).not.toMatch(/already complete/);
    expect((await readParquet(path)).rows.map((row) => row._id)).toEqual(table.slice(0, 10).map((row) => row.id)); // the staged rows, copied out
    expect(await readdir(dirname(path))).toEqual(['out.parquet']);
  });

  it('refuses to resume from a staging file that is missing, not DuckDB, or of other columns (exit 2, --restart)', async () => {
    const interrupted = async (): Promise<string> => {
      const path = await tempFile('out.parquet');
      await exportGivingUp(path, 3);
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
    await exportGivingUp(other, 3, { shape: { ...request().shape, meta: false } });
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
