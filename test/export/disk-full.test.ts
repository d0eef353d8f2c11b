import { readFile, readdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { describe, expect } from 'vitest';
import { TdsError } from '../../src/core/errors.js';
import { checkpointPath, readCheckpoint } from '../../src/export/checkpoint.js';
import { runExport } from '../../src/export/run-export.js';
import { OutputWriteError } from '../../src/output/write-error.js';
import { context, diskWithRoom, request, rows, service, tempFile, useTempFolder } from './export-fixtures.js';
import { test as it } from '../helpers/emulator-fixture.js';

it.beforeEach(({ tmp }) => useTempFolder(tmp));

// Issue 15, item 8: `-o FILE` on a disk that fills up. The disk is played by a file opener whose
// writes go to the real file until `room` bytes are used, then fail as a full disk fails (ENOSPC);
// once full, fsync fails too (as it may on a real full disk), so the checkpoint cannot be updated either.

describe('an export to -o FILE on a disk that fills up', () => {
  it('fails with the file and the error in one line, keeps what the checkpoint counts, and --resume completes it', async () => {
    const whole = await tempFile('whole.csv');
    await runExport(context().ctx, service().fetchPage, request({ output: whole }));
    const content = await readFile(whole, 'utf8');

    const path = await tempFile('out.csv');
    const error = await runExport(context().ctx, service().fetchPage, request({ output: path }), {
      open: diskWithRoom(Math.floor(content.length / 2)),
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutputWriteError);
    expect(error).toBeInstanceOf(TdsError);
    const failure = error as OutputWriteError;
    expect(failure.exitCode).toBe(1);
    expect(failure.message).toMatch(/^cannot write to .*out\.csv\.partial: no space left on device \(ENOSPC\)$/);
    const saved = await readCheckpoint(checkpointPath(path));
    expect(saved).toBeDefined();
    expect(saved!.rows % 5).toBe(0); // whole pages of 5
    expect(failure.hint).toBe(
      `${saved!.rows} rows are kept in ${path}.partial; once there is room, run the same command again with --resume to continue from there`,
    );
    expect((await readdir(dirname(path))).sort()).toEqual(['out.csv.partial', 'out.csv.tds-checkpoint']);

    const resumed = service();
    await runExport(context().ctx, resumed.fetchPage, request({ output: path, resume: true }));
    expect(resumed.calls[0]?.cursor).toBe(String(saved!.rows)); // continued from the checkpoint
    expect(await readFile(path, 'utf8')).toBe(content);
    expect(await readdir(dirname(path))).toEqual(['out.csv']);
  });

  it('a disk full before the first page is written keeps nothing and says so', async () => {
    const path = await tempFile('out.csv');
    const error = await runExport(context().ctx, service().fetchPage, request({ output: path }), { open: diskWithRoom(10) }).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({
      message: expect.stringMatching(/^cannot write to .*out\.csv\.partial: no space left on device \(ENOSPC\)$/),
      hint: 'nothing was kept; once there is room, run the command again',
    });
    expect(await readdir(dirname(path))).toEqual([]);
  });

  it('a resumed export that fills the disk again keeps the checkpoint it started from (or a later one)', async () => {
    const path = await tempFile('out.csv');
    const first = await runExport(context().ctx, service().fetchPage, request({ output: path }), { open: diskWithRoom(700) }).catch(
      (e: unknown) => e,
    );
    expect(first).toBeInstanceOf(OutputWriteError);
    const before = (await readCheckpoint(checkpointPath(path)))!.rows;
    const again = await runExport(context().ctx, service().fetchPage, request({ output: path, resume: true }), {
      open: diskWithRoom(0),
    }).catch((e: unknown) => e);
    expect(again).toMatchObject({ hint: expect.stringMatching(new RegExp(`^${before} rows are kept in `)) });
    await runExport(context().ctx, service().fetchPage, request({ output: path, resume: true }));
    expect((await readFile(path, 'utf8')).trim().split('\n')).toHaveLength(rows.length + 1);
  });
});
