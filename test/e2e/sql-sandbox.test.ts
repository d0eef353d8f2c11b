import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { readParquet } from '../export/parquet-file.js';
import { test as it, type Harness } from '../helpers/emulator-fixture.js';

// Issue 20, item 6: `tds sql` reaches no file, extension or other database unless --files (DuckDB's
// external access off, its settings locked); `-o FILE` is written by tds and works either way. The
// whole list of refusals is in test/duckdb/sandbox.test.ts; here, the ones the issue names.

let harness: Harness;
let mirrorBytes: Buffer;

it.beforeAll(async ({ openForFile }) => {
  harness = await openForFile();
  const synced = await harness.tds(['sync', 'Leads']);
  expect(synced.code, synced.stderr).toBe(0);
  await writeFile(join(harness.dir, 'secret.txt'), 'the user’s own file\n');
  mirrorBytes = await readFile(harness.db);
});

const FILES_HINT = /^hint: add --files to give the statement your own file access \(-o FILE writes a result without it\)$/m;

describe.concurrent('tds sql without --files', () => {
  it.each([
    ['COPY … TO the mirror itself (the issue’s command)', "COPY (select 1 as a) TO 'mirror.duckdb' (FORMAT csv)"],
    ['COPY … TO the mirror without a temporary file', "COPY (select 1 as a) TO 'mirror.duckdb' (FORMAT csv, USE_TMP_FILE false)"],
    ['EXPORT DATABASE', "EXPORT DATABASE 'backup' (FORMAT parquet)"],
    ["read_csv('/etc/passwd')", "SELECT * FROM read_csv('/etc/passwd')"],
    ['read_text of a file of the user', "SELECT content FROM read_text('secret.txt')"],
    ['INSTALL (a download)', 'INSTALL httpfs'],
    ['ATTACH', "ATTACH 'other.duckdb' AS other"],
  ])('refuses %s: exit 2, DuckDB’s message or what the statement would do, and the hint of --files', async (_name, sql) => {
    const result = await harness.tds(['sql', sql]);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^tds: SQL: (Permission Error: .*disabled|.* a statement has no file access without --files$)/m);
    expect(result.stderr).toMatch(FILES_HINT);
  });

  it.each([['SET enable_external_access back on', 'SET enable_external_access = true']])(
    'refuses %s: the settings are locked',
    async (_name, sql) => {
      const result = await harness.tds(['sql', sql]);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(
        /^tds: SQL: Invalid Input Error: Cannot change configuration option .* the configuration has been locked$/m,
      );
      expect(result.stderr).toMatch(/--files/);
    },
  );

  it('-o FILE.parquet is still written (by tds), while the query in it still reaches no file', async () => {
    const written = await harness.tds(['sql', 'SELECT count(*) AS n FROM leads', '-o', 'count.parquet']);
    expect(written.code, written.stderr).toBe(0);
    expect((await readParquet(join(harness.dir, 'count.parquet'))).rows).toHaveLength(1);
    const reading = await harness.tds(['sql', "SELECT * FROM read_text('secret.txt')", '-o', 'secret.parquet']);
    expect(reading.code).toBe(2);
    expect(reading.stderr).toMatch(/^tds: SQL: Permission Error: Cannot access file "secret\.txt"/m);
  });
});

describe('what the refusals left', () => {
  it('the mirror unchanged, and no file written', async () => {
    expect(Buffer.compare(await readFile(harness.db), mirrorBytes)).toBe(0);
    const names = await readdir(harness.dir);
    for (const name of ['backup', 'other.duckdb', 'secret.parquet', 'tmp_mirror.duckdb']) expect(names).not.toContain(name);
  });
});

describe('tds sql --files', () => {
  it('gives the statement the user’s own file access: read_text, COPY … TO', async () => {
    const read = await harness.tds(['sql', "SELECT content FROM read_text('secret.txt')", '--files', '--format', 'ndjson']);
    expect(read.code, read.stderr).toBe(0);
    expect(JSON.parse(read.stdout)).toEqual({ content: 'the user’s own file\n' });
    const copied = await harness.tds(['sql', "COPY (SELECT count(*) AS n FROM leads) TO 'n.csv'", '--files']);
    expect(copied.code, copied.stderr).toBe(0);
    expect(await readFile(join(harness.dir, 'n.csv'), 'utf8')).toMatch(/^n\n\d+\n$/);
  });
});
