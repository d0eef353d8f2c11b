import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, vi } from 'vitest';
import { test as it, useOpenOfEachTest } from '../helpers/emulator-fixture.js';

// `tds sync` refuses what it cannot do with a clear error and the right exit code: bad arguments and
// mirrors, a mirror of a newer tds, a mirror another process is syncing.

const openHarness = useOpenOfEachTest();

describe('tds sync: bad input', () => {
  it.each([
    ['an unknown table', ['sync', 'No Such Table'], 4, /no table with ID or name "No Such Table"/],
    ['nothing to sync in a new mirror', ['sync'], 2, /has no tables yet: name the tables to sync/],
    ['--every without --follow', ['sync', 'Leads', '--every', '5'], 2, /--every goes with --follow/],
    [
      'a --db that is not a DuckDB file',
      ['sync', 'Leads', '--db', 'not-a-db.txt'],
      2,
      /the mirror .*not-a-db\.txt is not a DuckDB database/,
    ],
    [
      'a --db that is a JSON file (which DuckDB would open as an empty in-memory database)',
      ['sync', 'Leads', '--db', 'leads.json'],
      2,
      /the mirror leads\.json is not a DuckDB database/,
    ],
    [
      'a --db that is a folder',
      ['sync', 'Leads', '--db', '.'],
      2,
      /the mirror \. is a folder\nhint: give --db a file name, e\.g\. tds\.duckdb/,
    ],
    [
      'a --db in a folder that is not there',
      ['sync', 'Leads', '--db', '/nonexistent/dir/m.duckdb'],
      2,
      /cannot open the mirror \/nonexistent\/dir\/m\.duckdb: .*No such file or directory/,
    ],
    ['a different --header for a mirrored table', ['sync', 'Leads', '--header', 'id'], 2, /has keys by label, not by id/],
  ])('%s: a clear error and the right exit code', async (_name, args, code, message) => {
    const harness = await openHarness();
    await writeFile(join(harness.dir, 'not-a-db.txt'), 'hello, this is not a database\n');
    await writeFile(join(harness.dir, 'leads.json'), '[{"Name": "Ada"}]\n');
    if (args.includes('--header')) expect((await harness.tds(['sync', 'Leads'])).code).toBe(0);
    const result = await harness.tds(args);
    expect(result.code, result.stderr).toBe(code);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(/bug in tds|at .*\.js/);
  });

  it('a sync that fails before it mirrors a table leaves no file; a mirror it did not make is kept', async () => {
    const harness = await openHarness();
    const files = async (): Promise<string[]> => (await readdir(harness.dir)).filter((name) => name.startsWith('none.duckdb')).sort();
    const unknown = await harness.tds(['sync', 'NoSuchTable', '--db', 'none.duckdb']);
    expect(unknown.code, unknown.stderr).toBe(4);
    expect(await files()).toEqual([]);
    const nothing = await harness.tds(['sync', '--db', 'none.duckdb']);
    expect(nothing.code, nothing.stderr).toBe(2);
    expect(await files()).toEqual([]);
    expect((await harness.tds(['sync', 'Leads', '--db', 'none.duckdb'])).code).toBe(0);
    expect((await harness.tds(['sync', 'NoSuchTable', '--db', 'none.duckdb'])).code).toBe(4);
    expect(await files()).toEqual(['none.duckdb']);
  });

  it('a mirror written by a newer tds is refused, by sync and sql alike', async () => {
    const harness = await openHarness();
    const first = await harness.tds(['sync', 'Leads']);
    expect(first.code, first.stderr).toBe(0);
    const marked = await harness.tds(['sql', "COMMENT ON TABLE _tds_tables IS 'tds mirror format 9'", '--write']);
    expect(marked.code, marked.stderr).toBe(0);
    const newer = await harness.tds(['sync']);
    expect(newer.code).toBe(2);
    expect(newer.stderr).toMatch(/was written by a newer tds \(mirror format 9; this one reads format 2\)/);
    expect((await harness.tds(['sql', 'SELECT 1'])).code).toBe(2);
  });

  it('a mirror another sync is following: a second sync is refused naming it, a reader reads', async () => {
    const harness = await openHarness();
    expect((await harness.tds(['sync', 'Leads'])).code).toBe(0);

    // a process: the lock is held between processes
    const follower = harness.spawn(['sync', '--follow', '--every', '0.2']);
    try {
      await vi.waitFor(() => expect(follower.stderr()).toMatch(/synced/), { timeout: 20_000, interval: 20 });
      const second = await harness.tds(['sync']);
      expect(second.code).toBe(2);
      expect(second.stderr).toMatch(
        /the mirror .*mirror\.duckdb is being synced by PID \d+ \(tds sync\)\nhint: one sync at a time writes a mirror/,
      );
      // the follower holds the file only while it writes: a read-only sql waits its turn and reads
      const reader = await harness.tds(['sql', 'SELECT count(*) AS n FROM leads', '--format', 'json']);
      expect(reader.code, reader.stderr).toBe(0);
    } finally {
      follower.child.kill('SIGINT');
      await follower.ended;
    }
  });
});
