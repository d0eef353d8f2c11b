import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/duckdb/engine.js';

// The files DuckDB creates for tds hold the organization's rows: readable by their owner only (0600),
// the database and its WAL, each time DuckDB makes the WAL anew; files written for the user keep the
// user's umask meanwhile (a Parquet file: test/parquet/copy-out.test.ts). Issue 20, item 10.

let dir: string;
let before: number;
beforeAll(async () => {
  before = process.umask(0o022);
  dir = await mkdtemp(join(tmpdir(), 'tds-private-'));
});
afterAll(async () => {
  process.umask(before);
  await rm(dir, { recursive: true, force: true });
});

const mode = async (path: string): Promise<number> => (await stat(path)).mode & 0o777;

describe('a database file of tds', () => {
  it('is created 0600, and so is its WAL, before and after a checkpoint', async () => {
    const path = join(dir, 'mirror.duckdb');
    const db = await openDatabase(path, { readOnly: false, what: 'the mirror' });
    try {
      expect(await mode(path)).toBe(0o600);
      await db.connection.run('CREATE TABLE t AS SELECT range AS i FROM range(10)');
      expect(await mode(`${path}.wal`)).toBe(0o600);
      await db.connection.run('CHECKPOINT');
      await db.connection.run('INSERT INTO t SELECT 1');
      expect(await mode(`${path}.wal`)).toBe(0o600);
    } finally {
      db.close();
    }
  });

  it('an in-memory database that attaches one says so, and its files are private too', async () => {
    const db = await openDatabase(':memory:', { readOnly: false, what: 'the staging file', privateFiles: true });
    try {
      const path = join(dir, 'attached.duckdb');
      await db.connection.run(`ATTACH '${path}' AS staged`);
      await db.connection.run('CREATE TABLE staged.t AS SELECT 1 AS a');
      expect(await mode(path)).toBe(0o600);
      expect(await mode(`${path}.wal`)).toBe(0o600);
    } finally {
      db.close();
    }
  });

  it('gives the user’s umask back once closed', async () => {
    const db = await openDatabase(join(dir, 'other.duckdb'), { readOnly: false, what: 'the mirror' });
    db.close();
    const memory = await openDatabase(':memory:', { readOnly: false, what: 'a listing' });
    try {
      await memory.connection.run(`COPY (SELECT 1 AS a) TO '${join(dir, 'plain.csv')}'`);
    } finally {
      memory.close();
    }
    expect(await mode(join(dir, 'plain.csv'))).toBe(0o644);
    expect((await readdir(dir)).filter((name) => name.endsWith('.partial'))).toEqual([]);
  });
});
