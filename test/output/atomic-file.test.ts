import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { lstat, mkdir, readFile, readdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { UsageError } from '../../src/core/errors.js';
import { checkOutputTarget, claimOutput } from '../../src/output/atomic-file.js';
import { writeListing } from '../../src/output/table.js';
import { OutputWriteError, describeWriteError } from '../../src/output/write-error.js';
import { context, diskWithRoom } from '../export/export-fixtures.js';
import { test as it } from '../helpers/emulator-fixture.js';
import { useTestFolder } from '../helpers/test-folder.js';

// Issue 15: -o FILE claimed before it is written (items 4 and 15), and refused writes reported in one
// line (items 7 and 8).

const folder = useTestFolder();
const tempDir = (): Promise<string> => folder.make('claim');

describe('checkOutputTarget', () => {
  it('accepts a missing file, a file in a missing folder, and a regular file', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'there.csv'), 'x');
    await expect(checkOutputTarget(join(dir, 'new.csv'))).resolves.toBeUndefined();
    await expect(checkOutputTarget(join(dir, 'missing', 'new.csv'))).resolves.toBeUndefined();
    await expect(checkOutputTarget(join(dir, 'there.csv'))).resolves.toBeUndefined();
  });

  it('refuses a symbolic link (even to a regular file), a folder and a device, saying what it is', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'real.csv'), 'x');
    await symlink(join(dir, 'real.csv'), join(dir, 'link.csv'));
    await mkdir(join(dir, 'folder'));
    const cases: Array<[string, RegExp, RegExp]> = [
      [join(dir, 'link.csv'), /is a symbolic link: tds writes -o FILE to a temporary file/, /^give the path it points to/],
      [join(dir, 'folder'), /is a folder/, /^give a file name/],
    ];
    if (existsSync('/dev/null')) cases.push(['/dev/null', /^-o \/dev\/null is a device/, /^write to stdout instead: tds … > \/dev\/null$/]);
    for (const [path, message, hint] of cases) {
      const error = await checkOutputTarget(path).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UsageError);
      expect((error as UsageError).message).toMatch(message);
      expect((error as UsageError).hint).toMatch(hint);
    }
  });

  it.runIf(process.platform !== 'win32')('refuses a named pipe (FIFO)', async () => {
    const fifo = join(await tempDir(), 'pipe.csv');
    execFileSync('mkfifo', [fifo]);
    await expect(checkOutputTarget(fifo)).rejects.toThrow(/is a named pipe \(FIFO\)/);
  });
});

describe('claimOutput', () => {
  it('holds FILE for this run: a second claim is a usage error naming the other holder, until release', async () => {
    const path = join(await tempDir(), 'out.csv');
    const lock = await claimOutput(path, 'another export');
    await expect(claimOutput(path, 'another export')).rejects.toMatchObject({
      code: 'USAGE',
      message: `another export is writing ${path}`,
      hint: 'wait until it has finished, or write to another file',
    });
    await lock.release();
    await (await claimOutput(path, 'another export')).release();
  });
});

describe('describeWriteError', () => {
  const system = (code: string, message: string, syscall: string) => Object.assign(new Error(message), { code, syscall });
  it.each([
    [system('ENOSPC', 'ENOSPC: no space left on device, write', 'write'), 'no space left on device (ENOSPC)'],
    [system('EFBIG', 'EFBIG: file too large, write', 'write'), 'file too large (EFBIG)'],
    [system('EISDIR', "EISDIR: illegal operation on a directory, open '/x'", 'open'), 'illegal operation on a directory (EISDIR)'],
    [new Error('something odd'), 'something odd'],
    ['a string', 'a string'],
  ])('%s → %s', (error, text) => expect(describeWriteError(error)).toBe(text));
});

describe('writeListing -o', () => {
  const spec = { format: 'csv' as const, fields: ['id'], columns: [], emptyMessage: '' };

  it('on a full disk: one OutputWriteError naming the file, exit 1, and nothing left behind', async () => {
    const dir = await tempDir();
    const path = join(dir, 'tables.csv');
    const error = await writeListing(context().ctx, [{ id: 'a' }], { ...spec, output: path, open: diskWithRoom(2) }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(OutputWriteError);
    expect(error).toMatchObject({ exitCode: 1, message: `cannot write to ${path}.partial: no space left on device (ENOSPC)` });
    expect(await readdir(dir)).toEqual([]);
  });

  it('does not follow a symbolic link left at FILE.partial: the link goes, FILE is a file of its own', async () => {
    const dir = await tempDir();
    const path = join(dir, 'tables.csv');
    await writeFile(join(dir, 'elsewhere.txt'), 'keep me\n');
    await symlink(join(dir, 'elsewhere.txt'), `${path}.partial`);
    await writeListing(context().ctx, [{ id: 'a' }], { ...spec, output: path });
    expect(await readFile(path, 'utf8')).toBe('id\na\n');
    expect((await lstat(path)).isFile()).toBe(true);
    expect(await readFile(join(dir, 'elsewhere.txt'), 'utf8')).toBe('keep me\n');
    expect((await readdir(dir)).sort()).toEqual(['elsewhere.txt', 'tables.csv']);
  });
});
