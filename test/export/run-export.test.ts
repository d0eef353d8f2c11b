import { readFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { TdsError } from '../../src/core/errors.js';
import type { FetchPage } from '../../src/export/export-request.js';
import { runExport } from '../../src/export/run-export.js';
import type { Row } from '../../src/service/index.js';
import { context as fixtureContext, request, service as pagedService, type Service, type ServiceOptions } from './export-fixtures.js';
import { test as it } from '../helpers/emulator-fixture.js';
import { useTestFolder } from '../helpers/test-folder.js';

// the fixtures' 23 rows, with quotes in every name and a cut note in every fifth row
const rows: Row[] = Array.from({ length: 23 }, (_, i) => ({
  id: `row_${String(i).padStart(3, '0')}`,
  tableId: 'tbl_1',
  createdAt: '2024-01-01T00:00:00.000Z',
  updatedAt: '2024-01-01T00:00:00.000Z',
  createdByUserId: null,
  cells: {
    f_name: { value: `Name ${i}, "quoted"` },
    ...(i % 5 === 0 ? { f_notes: { value: 'n'.repeat(200), isTruncated: true, valuePreview: 'n'.repeat(200) } } : {}),
  },
}));

/** Pages of these rows by offset cursors; `fail(n)` throws on the n-th call; `overlap` repeats rows at page starts. */
const service = (options: ServiceOptions = {}): Service => pagedService(() => rows, options);

const context = () => fixtureContext({ verbose: true });

const folder = useTestFolder();
const tempFile = async (name: string): Promise<string> => join(await folder.make('run-export'), name);
const ids = (csv: string): string[] =>
  csv
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => line.split(',')[0]!);

/** An export to `path` that the service stops at its second page (GAVE_UP), leaving a checkpoint to resume. */
const interruptedExport = (path: string): Promise<unknown> =>
  runExport(
    context().ctx,
    service({ fail: (call) => (call === 2 ? new TdsError('GAVE_UP', 'x') : undefined) }).fetchPage,
    request({ output: path }),
  ).catch(() => undefined);

describe('runExport', () => {
  it('writes every row once in service order and counts cut cells', async () => {
    const { ctx, stdout, stderr } = context();
    const summary = await runExport(ctx, service().fetchPage, request());
    expect(ids(stdout())).toEqual(rows.map((row) => row.id));
    expect(stdout().split('\n')[0]).toBe('_id,_createdAt,_updatedAt,_createdByUserId,Name,Notes');
    expect(summary).toMatchObject({ rows: 23, duplicates: 0, pages: 5, truncatedCells: 5 });
    expect(stderr()).toContain('5 cells were cut by the service at 200 characters (the cut text was kept): "Notes" 5');
  });

  it('drops rows repeated across pages and says so with --verbose', async () => {
    const { ctx, stdout, stderr } = context();
    const summary = await runExport(ctx, service({ overlap: 2 }).fetchPage, request({ format: 'ndjson' }));
    const written = stdout()
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { _id: string })._id);
    expect(written).toEqual(rows.map((row) => row.id));
    expect(summary.duplicates).toBe(8); // 2 on each of pages 2-5
    expect(stderr()).toContain('page 2: dropped 2 rows already written (duplicate row IDs)');
  });

  it('--limit asks each page for no more rows than still needed, and reads no page ahead', async () => {
    const { ctx, stdout } = context();
    const svc = service();
    await runExport(ctx, svc.fetchPage, request({ limit: 12 }));
    expect(ids(stdout())).toHaveLength(12);
    expect(svc.calls).toEqual([
      { cursor: undefined, limit: 5 },
      { cursor: '5', limit: 5 },
      { cursor: '10', limit: 2 },
    ]);
  });

  it('resumes a failed export from its checkpoint into a file identical to an uninterrupted one', async () => {
    const whole = await tempFile('whole.json');
    await runExport(context().ctx, service().fetchPage, request({ output: whole, format: 'json' }));

    const path = await tempFile('out.json');
    const gaveUp = new TdsError('GAVE_UP', 'read rows: gave up after 3 attempts (HTTP 500)', { status: 500 });
    const first = context();
    const error = await runExport(
      first.ctx,
      service({ fail: (call) => (call === 3 ? gaveUp : undefined) }).fetchPage,
      request({ output: path, format: 'json' }),
    ).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'GAVE_UP',
      hint: expect.stringMatching(/rows are in .*out\.json\.partial: run the same command again with --resume/),
    });
    expect((await readdir(join(path, '..'))).sort()).toEqual(['out.json.partial', 'out.json.tds-checkpoint']);

    const refused = await runExport(context().ctx, service().fetchPage, request({ output: path, format: 'json' })).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'USAGE', hint: 'add --resume to continue it, or --restart to start over' });

    const svc = service();
    const summary = await runExport(context().ctx, svc.fetchPage, request({ output: path, format: 'json', resume: true }));
    expect(svc.calls[0]?.cursor).not.toBeUndefined(); // continued, not started over
    expect(summary.truncatedCells).toBe(5); // cut cells of the first run are counted too
    expect(await readFile(path, 'utf8')).toBe(await readFile(whole, 'utf8'));
    expect((await readdir(join(path, '..'))).sort()).toEqual(['out.json']);
  });

  it('a cursor the service refuses on resume is a usage error that suggests --restart; --restart starts over', async () => {
    const path = await tempFile('out.csv');
    await interruptedExport(path);
    const stale = new TdsError('USAGE', 'read rows: cursor is not valid (HTTP 400)', { status: 400 });
    const error = await runExport(context().ctx, service({ fail: () => stale }).fetchPage, request({ output: path, resume: true })).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({
      code: 'USAGE',
      message: expect.stringMatching(/no longer accepts the saved cursor/),
      hint: expect.stringMatching(/--restart/),
    });
    await runExport(context().ctx, service().fetchPage, request({ output: path, restart: true }));
    expect(ids(await readFile(path, 'utf8'))).toHaveLength(rows.length);
  });

  it('refuses to resume an export started with other settings', async () => {
    const path = await tempFile('out.csv');
    await interruptedExport(path);
    const error = await runExport(
      context().ctx,
      service().fetchPage,
      request({ output: path, resume: true, shape: { ...request().shape, meta: false } }),
    ).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'USAGE', message: expect.stringMatching(/other settings for the record options/) });
  });

  it('--on-truncated error exits 8 after the whole export and leaves the file as .partial', async () => {
    const path = await tempFile('out.csv');
    const error = await runExport(context().ctx, service().fetchPage, request({ output: path, onTruncated: 'error' })).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: 'TRUNCATED', exitCode: 8 });
    await expect(stat(path)).rejects.toThrow();
    expect(ids(await readFile(`${path}.partial`, 'utf8'))).toHaveLength(rows.length);
  });

  it('an interrupt keeps the partial file and checkpoint and says how to resume', async () => {
    const path = await tempFile('out.csv');
    const run = context();
    const fetchPage: FetchPage = async (cursor, limit) => {
      if (cursor === '10') run.controller.abort(new TdsError('INTERRUPTED', 'interrupted'));
      return service().fetchPage(cursor, limit);
    };
    await expect(runExport(run.ctx, fetchPage, request({ output: path }))).rejects.toMatchObject({
      code: 'INTERRUPTED',
      message: expect.stringMatching(/stopped after \d+ rows; .*out\.csv\.partial and .*out\.csv\.tds-checkpoint are kept/),
      hint: expect.stringMatching(/^run the same command again with --resume/),
    });
    await runExport(context().ctx, service().fetchPage, request({ output: path, resume: true }));
    expect(ids(await readFile(path, 'utf8'))).toEqual(rows.map((row) => row.id));
  });
});
