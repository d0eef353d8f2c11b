import { execFileSync } from 'node:child_process';
import { lstat, readFile, readdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { emulatorRequests } from './read-support.js';
import { checkpointRows, exists, spawnedHarness, waitUntil } from './export-support.js';
import { test as it } from '../helpers/emulator-fixture.js';

// Issue 15, items 4, 8, 9 and 15 (part): two runs writing one -o FILE, a write the disk refuses, the
// state a kill between the rename and the checkpoint's removal leaves, and -o onto what is not a file.

const { emulator, tds, tempDir } = spawnedHarness('export-hardening-');

/** A clean export of Leads to `path` from the emulator `run` talks to, to compare resumed files with. */
async function wholeExport(path: string, run = tds): Promise<string> {
  const result = await run(['rows', 'Leads', '--page-size', '20', '-o', path]);
  expect(result.code, result.stderr).toBe(0);
  return readFile(path, 'utf8');
}

describe('two runs writing the same -o FILE (issue 15, item 4)', () => {
  it('a second export, a --restart and a listing to FILE exit 2 while the first writes it; the first then resumes intact', async ({
    open,
  }) => {
    // Read requests: 1 tables, 2 schema, 3-4 pages one and two, 5 page three, which never gets an answer.
    const stalling = await open({ spawned: { args: ['--read-faults', 'stall@5'] } });
    const dir = await tempDir();
    const file = join(dir, 'leads.csv');
    const first = stalling.spawn(['rows', 'Leads', '--page-size', '20', '-o', file]);
    await waitUntil(async () => (await emulatorRequests(stalling)).some((entry) => entry.fault === 'stall'), 15_000, 'the stall');
    await waitUntil(async () => (await checkpointRows(file)) === 40, 15_000, 'two pages checkpointed');
    const partial = await readFile(`${file}.partial`);

    const run = stalling.tds;
    for (const args of [
      ['rows', 'Leads', '--page-size', '20', '-o', file],
      ['rows', 'Leads', '-o', file, '--restart'],
      ['rows', 'Leads', '-o', file, '--resume'],
    ]) {
      const second = await run(args);
      expect(second.code, args.join(' ')).toBe(2);
      expect(second.stderr).toMatch(/^tds: another export is writing .*leads\.csv$/m);
    }
    const listing = await run(['tables', '-o', file]);
    expect(listing.code).toBe(2);
    expect(listing.stderr).toMatch(/^tds: another tds command is writing .*leads\.csv$/m);
    // Nothing of the first run was touched.
    expect(await readFile(`${file}.partial`)).toEqual(partial);
    expect(await checkpointRows(file)).toBe(40);
    expect(first.child.exitCode).toBeNull();

    first.child.kill('SIGINT');
    expect(await first.exit).toBe(130);
    const resumed = await run(['rows', 'Leads', '--page-size', '20', '-o', file, '--resume']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(await readFile(file, 'utf8')).toBe(await wholeExport(join(dir, 'whole.csv'), run));
    expect((await readdir(dir)).sort()).toEqual(['leads.csv', 'whole.csv']);
  });

  it('exports to two different files run side by side', async () => {
    const dir = await tempDir();
    const [a, b] = await Promise.all([
      tds(['rows', 'Leads', '--page-size', '50', '-o', join(dir, 'a.csv')]),
      tds(['rows', 'Leads', '--page-size', '50', '-o', join(dir, 'b.csv')]),
    ]);
    expect([a.code, b.code]).toEqual([0, 0]);
    expect(await readFile(join(dir, 'a.csv'), 'utf8')).toBe(await readFile(join(dir, 'b.csv'), 'utf8'));
  });
});

describe('-o on a disk that refuses a write (issue 15, item 8)', () => {
  it.runIf(process.platform === 'linux')(
    'says which file and which error, how many rows are kept and how to resume; --resume then completes the file',
    async () => {
      const dir = await tempDir();
      const file = join(dir, 'leads.csv');
      // `ulimit -f 60`: the export's file may not grow past 30 KB (about 60 of its 250 rows); past it, writes fail.
      const run = emulator.spawn(['rows', 'Leads', '--page-size', '20', '-o', file], { fileSizeBlocks: 60 });
      expect(await run.exit).toBe(1);
      const stderr = run.stderr();
      expect(stderr).toMatch(/^tds: cannot write to .*leads\.csv\.partial: file too large \(EFBIG\)$/m);
      const kept =
        /^hint: (\d+) rows are kept in .*leads\.csv\.partial; once there is room, run the same command again with --resume to continue from there$/m.exec(
          stderr,
        );
      expect(kept, stderr).not.toBeNull();
      expect(Number(kept![1]) % 20).toBe(0); // whole pages
      expect(Number(kept![1])).toBeGreaterThan(0);
      expect(stderr).not.toMatch(/bug in tds|unexpected failure|\n\s+at /);
      expect(stderr.trimEnd().split('\n')).toHaveLength(2);

      const resumed = await tds(['rows', 'Leads', '--page-size', '20', '-o', file, '--resume']);
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(await readFile(file, 'utf8')).toBe(await wholeExport(join(dir, 'whole.csv')));
      expect((await readdir(dir)).sort()).toEqual(['leads.csv', 'whole.csv']);
    },
  );
});

describe('a complete FILE beside the checkpoint of its last page (issue 15, item 9)', () => {
  it('--resume says the export is already complete and exits 0; a plain run starts afresh', async ({ open }) => {
    // Requests 5-7 fail: an export with --max-retries 2 stops there and leaves a checkpoint of this very export.
    const failing = await open({ spawned: { args: ['--read-faults', '500@5-7'] } });
    const run = failing.tds;
    const dir = await tempDir();
    const other = join(dir, 'other.csv');
    expect((await run(['rows', 'Leads', '--page-size', '20', '-o', other, '--max-retries', '2'])).code).toBe(6);
    const checkpoint = JSON.parse(await readFile(`${other}.tds-checkpoint`, 'utf8')) as Record<string, unknown>;

    /** FILE complete, FILE.tds-checkpoint saying the last page was written, no FILE.partial: a kill after the rename. */
    const completedState = async (file: string): Promise<string> => {
      const content = await wholeExport(file, run);
      const state = { ...checkpoint, done: true, cursor: null, rows: 250, bytes: Buffer.byteLength(content) };
      await writeFile(`${file}.tds-checkpoint`, JSON.stringify(state));
      return content;
    };

    const file = join(dir, 'leads.csv');
    const content = await completedState(file);
    const resumed = await run(['rows', 'Leads', '--page-size', '20', '-o', file, '--resume']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/^tds: the export to .*leads\.csv is already complete \(250 rows\); nothing to do$/m);
    expect(await readFile(file, 'utf8')).toBe(content);
    expect(await exists(`${file}.tds-checkpoint`)).toBe(false);

    await completedState(file);
    const plain = await run(['rows', 'Leads', '--page-size', '20', '-o', file]);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stderr).not.toMatch(/can be continued/);
    expect(await readFile(file, 'utf8')).toBe(content);
    expect((await readdir(dir)).sort()).toEqual(['leads.csv', 'other.csv.partial', 'other.csv.tds-checkpoint']);
  });
});

describe('-o onto what is not a regular file (issue 15, item 15)', () => {
  it('refuses a symbolic link with exit 2, for exports and listings, and leaves the link and its target alone', async () => {
    const dir = await tempDir();
    const target = join(dir, 'real.csv');
    const link = join(dir, 'link.csv');
    await writeFile(target, 'keep me\n');
    await symlink(target, link);
    for (const args of [
      ['rows', 'Leads', '-o', link],
      ['tables', '-o', link],
    ]) {
      const result = await tds(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(/^tds: -o .*link\.csv is a symbolic link: .*$/m);
      expect(result.stderr).toMatch(/^hint: give the path it points to/m);
    }
    expect((await lstat(link)).isSymbolicLink()).toBe(true);
    expect(await readFile(target, 'utf8')).toBe('keep me\n');
    expect((await readdir(dir)).sort()).toEqual(['link.csv', 'real.csv']);
  });

  it.runIf(process.platform !== 'win32')('refuses a named pipe (FIFO) with exit 2, for exports and listings', async () => {
    const dir = await tempDir();
    const fifo = join(dir, 'pipe.csv');
    execFileSync('mkfifo', [fifo]);
    for (const args of [
      ['rows', 'Leads', '-o', fifo],
      ['schema', 'Leads', '-o', fifo],
    ]) {
      const result = await tds(args, { timeoutMs: 15_000 });
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(/^tds: -o .*pipe\.csv is a named pipe \(FIFO\): .*$/m);
      expect(result.stderr).toMatch(/^hint: write to stdout instead/m);
    }
    expect((await lstat(fifo)).isFIFO()).toBe(true);
    expect(await readdir(dir)).toEqual(['pipe.csv']);
  });
});
