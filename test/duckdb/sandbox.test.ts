import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TdsError } from '../../src/core/errors.js';
import { openDatabase, type Database } from '../../src/duckdb/engine.js';
import { duckdbFailure } from '../../src/duckdb/errors.js';
import type { FileAccess } from '../../src/duckdb/file-access.js';
import { interruptible, prepareOne, runStatement, type ResultRecord } from '../../src/duckdb/statement.js';

// The SQL sandbox of `tds sql` (and of the MCP server's query_sql): a database opened with file access
// off reaches no file, extension or other database whatever the statement, and a statement is stopped
// by its signal. Issue 20, items 6 and 9.

let dir: string;
let path: string;
/** A secret beside the mirror that no statement may read. */
let secret: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tds-sandbox-'));
  path = join(dir, 'mirror.duckdb');
  secret = join(dir, 'secret.csv');
  await writeFile(secret, 'token\nabc\n');
  const db = await openDatabase(path, { readOnly: false, what: 'the mirror' });
  await db.connection.run('CREATE TABLE leads AS SELECT range AS id, range % 7 AS stage FROM range(1000)');
  db.close();
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const NONE: FileAccess = { files: false };

async function open(access: FileAccess, readOnly = true): Promise<Database> {
  return openDatabase(path, { readOnly, what: 'the mirror', access });
}

/** Runs one statement the way tds sql does; its rows when it is a query. */
async function run(db: Database, sql: string, access: FileAccess, signal = new AbortController().signal): Promise<ResultRecord[]> {
  const step = interruptible(db, signal);
  const statement = await prepareOne(db, sql, access, step);
  const outcome = await runStatement(db, statement, step);
  const rows: ResultRecord[] = [];
  if (outcome.kind === 'rows') for await (const row of outcome.rows) rows.push(row);
  return rows;
}

async function refusal(sql: string, readOnly = true): Promise<unknown> {
  const db = await open(NONE, readOnly);
  try {
    await run(db, sql, NONE);
  } catch (error) {
    return error;
  } finally {
    db.close();
  }
  throw new Error(`not refused: ${sql}`);
}

describe('without file access, DuckDB refuses every way out of the database', () => {
  it.each([
    ["read_csv('/etc/passwd')", "SELECT * FROM read_csv('/etc/passwd')"],
    ['read_text of a file beside the mirror', () => `SELECT * FROM read_text('${secret}')`],
    ['read_blob', "SELECT * FROM read_blob('/etc/hostname')"],
    ['read_parquet', "SELECT * FROM read_parquet('/tmp/x.parquet')"],
    ['glob', "SELECT * FROM glob('/etc/*')"],
    ['sniff_csv', () => `SELECT * FROM sniff_csv('${secret}')`],
    ['INSTALL (a download)', 'INSTALL httpfs'],
    ['LOAD of an extension not built in', 'LOAD httpfs'],
    ['CREATE SECRET (persisted in a file)', "CREATE PERSISTENT SECRET s (TYPE s3, KEY_ID 'k', SECRET 'v')"],
    ['IMPORT DATABASE', () => `IMPORT DATABASE '${dir}'`],
    ['COPY … TO a file', () => `COPY (SELECT 1 AS a) TO '${join(dir, 'out.csv')}'`],
    ['COPY … FROM a file', () => `COPY leads FROM '${secret}'`],
    ['EXPORT DATABASE', () => `EXPORT DATABASE '${join(dir, 'backup')}'`],
  ])('%s', async (_name, sql) => {
    const error = await refusal(typeof sql === 'function' ? sql() : sql);
    expect(duckdbFailure(error), String(error)).toBe('file-access-off');
  });

  it.each([
    ['SET enable_external_access back on', 'SET enable_external_access = true'],
    ['RESET of it', 'RESET enable_external_access'],
    ['another setting', "SET memory_limit = '8GB'"],
    ['profiling output to a file', () => `PRAGMA profiling_output = '${join(dir, 'profile.json')}'`],
  ])('%s: the settings are locked', async (_name, sql) => {
    const error = await refusal(typeof sql === 'function' ? sql() : sql);
    expect(duckdbFailure(error), String(error)).toBe('settings-locked');
  });

  it.each([
    [
      'COPY … TO the mirror itself (DuckDB allows its own files)',
      () => `COPY (SELECT 1 AS a) TO '${path}' (FORMAT csv, USE_TMP_FILE false)`,
    ],
    ['COPY … TO its WAL', () => `COPY (SELECT 1 AS a) TO '${path}.wal' (FORMAT csv, USE_TMP_FILE false)`],
    ['EXPORT DATABASE into its temporary folder (allowed to DuckDB)', () => `EXPORT DATABASE '${path}.tmp'`],
    ['ATTACH of a new file in that folder', () => `ATTACH '${path}.tmp/other.duckdb' AS other`],
    ['ATTACH in memory', "ATTACH ':memory:' AS other"],
  ])('%s: a statement whose job is files is refused before it runs', async (_name, sql) => {
    const error = await refusal(typeof sql === 'function' ? sql() : sql, false);
    expect(error).toBeInstanceOf(TdsError);
    expect((error as TdsError).message).toMatch(/^SQL: .* a statement has no file access without --files$/);
    expect((error as TdsError).hint).toMatch(/--files/);
  });

  it('leaves the mirror as it was, and writes no file', async () => {
    expect((await readFile(path)).subarray(8, 12).toString()).toBe('DUCK');
    expect((await readdir(dir)).sort()).toEqual(['mirror.duckdb', 'mirror.duckdb.tmp', 'secret.csv']);
    // DuckDB's own folder for spilling (binding EXPORT DATABASE to it made it), and nothing in it
    expect(await readdir(`${path}.tmp`)).toEqual([]);
  });

  it('still answers queries, and writes with --write', async () => {
    const db = await open(NONE, false);
    try {
      expect(await run(db, 'SELECT count(*) AS n FROM leads', NONE)).toEqual([{ n: 1000 }]);
      await run(db, 'CREATE VIEW won AS SELECT * FROM leads WHERE stage = 6', NONE);
      expect(await run(db, 'SELECT count(*) AS n FROM won', NONE)).toEqual([{ n: 142 }]);
    } finally {
      db.close();
    }
  });

  it("allows the one path tds has DuckDB write (-o FILE.parquet's partial file), and no other", async () => {
    const target = join(dir, 'rows.parquet.partial');
    const access: FileAccess = { files: false, writablePaths: [target] };
    const db = await open(access);
    try {
      await db.connection.run(`COPY (SELECT * FROM leads) TO '${target}' (FORMAT parquet, USE_TMP_FILE false)`);
      expect((await stat(target)).size).toBeGreaterThan(0);
      const other = await db.connection.run(`COPY (SELECT 1) TO '${join(dir, 'other.parquet')}' (FORMAT parquet)`).catch((e: unknown) => e);
      expect(duckdbFailure(other)).toBe('file-access-off');
    } finally {
      db.close();
      await rm(target, { force: true });
    }
  });

  it('with file access, a statement reads and writes files', async () => {
    const access: FileAccess = { files: true };
    const db = await open(access);
    try {
      expect(await run(db, `SELECT token FROM read_csv('${secret}')`, access)).toEqual([{ token: 'abc' }]);
      await run(db, `EXPORT DATABASE '${join(dir, 'backup')}' (FORMAT parquet)`, access);
      expect(await readdir(join(dir, 'backup'))).toEqual(expect.arrayContaining(['leads.parquet', 'schema.sql']));
    } finally {
      db.close();
      await rm(join(dir, 'backup'), { recursive: true, force: true });
    }
  });
});

describe('one statement', () => {
  it.each([
    ['two', 'SELECT 1; SELECT 2', /this text holds 2/],
    ['none', ';', /no SQL statement given/],
    ['only a comment', '-- SELECT 1', /no SQL statement given/],
  ])('%s: a usage error', async (_name, sql, message) => {
    const db = await open(NONE);
    try {
      await expect(run(db, sql, NONE)).rejects.toThrow(message);
    } finally {
      db.close();
    }
  });
});

describe('a signal stops the statement', () => {
  // 10^12 rows: it runs far longer than any test does unless it is stopped
  const LONG = 'SELECT sum(a.range * b.range) AS s FROM range(1000000) a, range(1000000) b';

  it('while DuckDB computes: the call fails with the reason, and the connection goes on', async () => {
    const db = await open(NONE);
    try {
      const controller = new AbortController();
      const reason = new TdsError('INTERRUPTED', 'interrupted');
      const step = interruptible(db, controller.signal);
      const statement = await prepareOne(db, LONG, NONE, step);
      const running = runStatement(db, statement, step);
      setImmediate(() => controller.abort(reason));
      await expect(running).rejects.toBe(reason);
      // the connection runs one statement at a time: this one runs, so the long one has stopped
      expect(await run(db, 'SELECT 42 AS x', NONE)).toEqual([{ x: 42 }]);
    } finally {
      db.close();
    }
  });

  it("a time limit (the MCP server's): the statement fails with the signal's TimeoutError", async () => {
    const db = await open(NONE);
    try {
      await expect(run(db, LONG, NONE, AbortSignal.timeout(100))).rejects.toMatchObject({ name: 'TimeoutError' });
    } finally {
      db.close();
    }
  });

  it('while rows stream: they end in the error, never early as if complete', async () => {
    const db = await open(NONE);
    try {
      const controller = new AbortController();
      const step = interruptible(db, controller.signal);
      const outcome = await runStatement(db, await prepareOne(db, 'SELECT range AS i FROM range(100000000)', NONE, step), step);
      if (outcome.kind !== 'rows') throw new Error('a query');
      let seen = 0;
      const reading = (async () => {
        for await (const _row of outcome.rows) if (++seen === 5000) controller.abort(new Error('stop'));
      })();
      await expect(reading).rejects.toThrow('stop');
      expect(seen).toBeLessThan(100000000);
    } finally {
      db.close();
    }
  });

  it('a call that does not return when interrupted is given up: the database is left as it is', async () => {
    const db = await open(NONE);
    let abandoned = false;
    const watched: Database = { ...db, abandon: () => (abandoned = true) };
    const controller = new AbortController();
    const step = interruptible(watched, controller.signal);
    const never = step(() => new Promise<never>(() => undefined));
    controller.abort(new Error('stop'));
    await expect(never).rejects.toThrow('stop');
    expect(abandoned).toBe(true);
    db.close();
  });
});
