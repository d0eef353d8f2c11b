import { readFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, onTestFinished, vi } from 'vitest';
import { readParquet } from '../export/parquet-file.js';
import { checkpointRows, logMark, pagesServedSince, waitUntil } from './export-support.js';
import { test as it, type Harness } from '../helpers/emulator-fixture.js';

// `tds rows -o FILE` interrupted (retries run out, Ctrl-C) and resumed, in a text format and in Parquet:
// the same steps and checks for each, with what each format keeps beside FILE meanwhile.

interface ExportFormat {
  extension: string;
  /** The file that holds the rows written while FILE is not whole, beside the checkpoint. */
  data: (file: string) => string;
  /** What an interrupted export leaves in its folder, sorted. */
  kept: (name: string) => string[];
  /** What the checkpoint counts once the first two pages (40 rows) are written and the clock stands still. */
  checkpointedAt40: number | undefined;
  /** A checkpoint's `bytes` of 40 rows written to `file`. */
  bytesOf40: (file: string) => Promise<number>;
  /** The file as a reader sees it, to compare a resumed export with an uninterrupted one. */
  read: (path: string) => Promise<unknown>;
}

const FORMATS: ExportFormat[] = [
  {
    // each page written is checkpointed as it comes
    extension: 'csv',
    data: (file) => `${file}.partial`,
    kept: (name) => [`${name}.partial`, `${name}.tds-checkpoint`],
    checkpointedAt40: 40,
    bytesOf40: async (file) => (await stat(`${file}.partial`)).size,
    read: (path) => readFile(path, 'utf8'),
  },
  {
    // rows are staged, committed at a row group or a second after the last commit: the checkpoint counts committed rows only
    extension: 'parquet',
    data: (file) => `${file}.tds-staging.duckdb`,
    kept: (name) => [`${name}.tds-checkpoint`, `${name}.tds-staging.duckdb`, `${name}.tds-staging.duckdb.wal`],
    checkpointedAt40: undefined,
    bytesOf40: () => Promise.resolve(40),
    read: readParquet,
  },
];

const escaped = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe.each(FORMATS.map((format) => [format.extension, format] as const))('tds rows -o FILE.%s: interrupted and resumed', (_, format) => {
  const name = `leads.${format.extension}`;

  /** `--resume` reads pages 3-13 of Leads alone (250 rows, 20 a page) into a file equal to an uninterrupted export, and leaves nothing else. */
  async function expectResumedWhole(harness: Harness, dir: string): Promise<void> {
    const file = join(dir, name);
    const before = await logMark(harness);
    const resumed = await harness.tds(['rows', 'Leads', '--page-size', '20', '-o', file, '--resume']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(await pagesServedSince(harness, before)).toBe(11);
    const whole = `whole.${format.extension}`;
    expect((await harness.tds(['rows', 'Leads', '-o', join(dir, whole)])).code).toBe(0);
    expect(await format.read(file)).toEqual(await format.read(join(dir, whole)));
    expect((await readdir(dir)).sort()).toEqual([name, whole]);
  }

  it('after retries run out (exit 6), --resume reads only the pages after the checkpoint into a file equal to an uninterrupted export', async ({
    open,
    tmp: dir,
  }) => {
    // Read requests: 1 tables, 2 schema, 3-4 pages one and two, 5-7 page three and its two retries.
    const faulty = await open({ spawned: { args: ['--read-faults', '500@5-7'] } });
    const failed = await faulty.tds(['rows', 'Leads', '--page-size', '20', '-o', join(dir, name), '--max-retries', '2']);
    expect(failed.code).toBe(6);
    expect(failed.stderr).toMatch(
      new RegExp(`hint: .*40 rows are in .*${escaped(format.data(name))}: run the same command again with --resume`),
    );
    expect((await readdir(dir)).sort()).toEqual(format.kept(name));
    await expectResumedWhole(faulty, dir);
  });

  it('after Ctrl-C (exit 130, its rows committed and checkpointed, the files kept), --resume finishes a file equal to an uninterrupted export', async ({
    open,
    tmp: dir,
  }) => {
    // The fifth read request (page three) never gets an answer, so the export is surely mid-way when interrupted.
    const stalling = await open({ spawned: { args: ['--read-faults', 'stall@5'] } });
    const file = join(dir, name);
    // tds's clock stands still (the emulator is a process of its own): no second passes after a commit,
    // so staged rows wait for Ctrl-C to commit them however slow the machine is
    vi.useFakeTimers({ toFake: ['Date'] });
    onTestFinished(() => void vi.useRealTimers());
    const interrupt = new AbortController();
    let written = { stderr: () => '' };
    // on a terminal the progress line (redrawn every second) says when both pages before the stall are written
    const run = stalling.tds(['rows', 'Leads', '--page-size', '20', '-o', file], {
      env: { TDS_FORCE_TTY: '1' },
      interrupt: interrupt.signal,
      output: (output) => (written = output),
    });
    // (vi.waitFor would move the fake clock on at each try)
    await waitUntil(() => /\b40 rows ·/.test(written.stderr()), 15_000, 'two pages written');
    await waitUntil(async () => (await checkpointRows(file)) === format.checkpointedAt40, 15_000, 'the checkpoint of what is committed');
    interrupt.abort();
    const stopped = await run;
    vi.useRealTimers();
    expect(stopped.code).toBe(130);
    expect(stopped.stderr).toMatch(
      new RegExp(
        `the export stopped after 40 rows; .*${escaped(format.data(name))} and .*${escaped(name)}\\.tds-checkpoint are kept\\nhint: run the same command again with --resume`,
      ),
    );
    // Ctrl-C committed them first: the checkpoint counts all 40
    expect(JSON.parse(await readFile(`${file}.tds-checkpoint`, 'utf8'))).toMatchObject({
      rows: 40,
      bytes: await format.bytesOf40(file),
      cursor: expect.any(String),
    });
    expect((await readdir(dir)).sort()).toEqual(format.kept(name));

    await expectResumedWhole(stalling, dir);
  });
});
