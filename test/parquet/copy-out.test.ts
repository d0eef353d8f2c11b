import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/duckdb/engine.js';
import { quoteLiteral } from '../../src/duckdb/sql-text.js';
import { OutputWriteError } from '../../src/output/write-error.js';
import { copyOut, copyToPartial, partialPath } from '../../src/parquet/copy-out.js';
import { readParquet } from '../export/parquet-file.js';

// The one COPY-out of every Parquet file tds writes: FILE.partial by DuckDB, the user's umask, then FILE;
// a failure leaves no FILE.partial, and a write the system refuses is a write error naming the file.

let dir: string;
let db: Database;
let umaskBefore: number;
beforeAll(async () => {
  umaskBefore = process.umask(0o022);
  dir = await mkdtemp(join(tmpdir(), 'tds-copy-out-'));
  // a database of tds's own is open meanwhile: it holds the umask private (0077) while it is
  db = await openDatabase(join(dir, 'staging.duckdb'), { readOnly: false, what: 'the staging file' });
});
afterAll(async () => {
  db?.close();
  process.umask(umaskBefore);
  await rm(dir, { recursive: true, force: true });
});

const run = (sql: string): Promise<unknown> => db.connection.run(sql);
const mode = async (path: string): Promise<number> => (await stat(path)).mode & 0o777;
const parquetFiles = async (): Promise<string[]> => (await readdir(dir)).filter((name) => name.includes('.parquet')).sort();

describe('copyOut', () => {
  it('writes the rows as FILE, with the mode of the user’s umask though a private database is open, and no FILE.partial', async () => {
    const path = join(dir, 'rows.parquet');
    await copyOut({ run, query: "SELECT 1 AS a, 'x' AS b", path });
    expect(await mode(path)).toBe(0o644);
    expect((await readParquet(path)).rows).toEqual([{ a: 1, b: 'x' }]);
    expect(await parquetFiles()).toEqual(['rows.parquet']);
    await rm(path);
  });

  it('a query that fails leaves FILE as it was and no FILE.partial; DuckDB’s error passes as it is', async () => {
    const path = join(dir, 'kept.parquet');
    await writeFile(path, 'the earlier file');
    await expect(copyOut({ run, query: "SELECT CAST('x' AS INTEGER) AS n", path })).rejects.toThrow(/^Conversion Error/);
    expect(await parquetFiles()).toEqual(['kept.parquet']);
    await rm(path);
  });

  it.runIf(existsSync('/dev/full'))(
    'a write the system refuses (a full disk) is an OutputWriteError naming FILE.partial, which is not left',
    async () => {
      const path = join(dir, 'full.parquet');
      // DuckDB's own write, aimed at /dev/full: every write fails with ENOSPC
      const onFullDisk = (sql: string): Promise<unknown> => run(sql.replace(quoteLiteral(partialPath(path)), "'/dev/full'"));
      const query = "SELECT range AS n, 'row ' || range AS text FROM range(100000)";
      const error = await copyOut({ run: onFullDisk, query, path }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OutputWriteError);
      expect(error).toMatchObject({ exitCode: 1, message: `cannot write to ${path}.partial: no space left on device (ENOSPC)` });
      expect(await parquetFiles()).toEqual([]);
    },
  );
});

describe('copyToPartial', () => {
  it('leaves the rows as a whole FILE.partial, FILE untouched (an export whose FILE is not to be replaced)', async () => {
    const path = join(dir, 'whole.parquet');
    expect(await copyToPartial({ run, query: 'SELECT range AS n FROM range(3)', path })).toBe(`${path}.partial`);
    expect(await parquetFiles()).toEqual(['whole.parquet.partial']);
    expect((await readParquet(`${path}.partial`)).rows).toEqual([{ n: 0n }, { n: 1n }, { n: 2n }]);
    await rm(`${path}.partial`);
  });
});
