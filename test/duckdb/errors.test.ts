import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeHolder, loadDuckDB } from '../../src/duckdb/engine.js';
import { duckdbFailure, firstLine, lockHolder, nameHint, systemRefusal, type DuckDBFailure } from '../../src/duckdb/errors.js';

// Every DuckDB message tds gives a meaning to (src/duckdb/errors.ts), provoked on the pinned DuckDB:
// an upgrade that rewords one fails its test here.

let dir: string;
let mirror: string;
let instance: DuckDBInstance;
let connection: DuckDBConnection;
/** The error `work` fails with. */
const failure = (work: () => Promise<unknown>): Promise<unknown> =>
  work().then(
    () => {
      throw new Error('expected a failure');
    },
    (error: unknown) => error,
  );
const open = async (path: string, settings: Record<string, string> = {}): Promise<DuckDBInstance> =>
  (await loadDuckDB()).DuckDBInstance.create(path, settings);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tds-duckdb-errors-'));
  mirror = join(dir, 'mirror.duckdb');
  const writer = await open(mirror);
  const setup = await writer.connect();
  await setup.run('CREATE TABLE t AS SELECT 1 AS a');
  setup.closeSync();
  writer.closeSync();
  instance = await open(mirror, { access_mode: 'READ_ONLY', enable_external_access: 'false', lock_configuration: 'true' });
  connection = await instance.connect();
});
afterAll(async () => {
  connection?.closeSync();
  instance?.closeSync();
  await rm(dir, { recursive: true, force: true });
});

/** `keys` appended to a table of a primary key that holds 'a' (what the mirror's first sync does with a row read twice). */
async function appendKeys(keys: string[]): Promise<void> {
  const memory = await (await open(':memory:')).connect();
  const appender = await memory.run('CREATE TABLE k (id VARCHAR PRIMARY KEY)').then(async () => {
    await memory.run("INSERT INTO k VALUES ('a')");
    return memory.createAppender('k');
  });
  try {
    for (const key of keys) {
      appender.appendVarchar(key);
      appender.endRow();
    }
    appender.flushSync();
  } finally {
    appender.clear();
    appender.closeSync();
    memory.closeSync();
  }
}

describe('each message DuckDB gives, as tds reads it', () => {
  const cases: Array<[DuckDBFailure, string, () => Promise<unknown>]> = [
    [
      'interrupted',
      'a statement stopped by interrupt()',
      () => {
        const running = connection.run('SELECT sum(a.range * b.range) FROM range(1000000) a, range(1000000) b');
        const again = setInterval(() => connection.interrupt(), 20);
        return running.finally(() => clearInterval(again));
      },
    ],
    ['no-statement', 'text without a statement', () => connection.extractStatements('-- nothing')],
    ['file-access-off', 'a file read with external access off', () => connection.run("SELECT * FROM read_text('/etc/hostname')")],
    ['file-access-off', 'an extension loaded with external access off', () => connection.run('LOAD httpfs')],
    ['settings-locked', 'a setting changed after the lock', () => connection.run('SET enable_external_access = true')],
    ['read-only', 'a change to a read-only database', () => connection.run('UPDATE t SET a = 2')],
    ['no-such-table', 'an unknown table', () => connection.run('SELECT * FROM nope')],
    ['no-database', 'a read-only open of no file', () => open(join(dir, 'none.duckdb'), { access_mode: 'READ_ONLY' })],
    ['cannot-open-file', 'a database in a folder that is not there', () => open(join(dir, 'no', 'such', 'x.duckdb'))],
    [
      'not-a-database',
      'a file that is not a database',
      async () => {
        await writeFile(join(dir, 'text.duckdb'), 'not a database, just some text');
        return open(join(dir, 'text.duckdb'));
      },
    ],
    ['other-version', 'a database of another storage version', async () => open(await withStorageVersion(999n))],
    ['duplicate-key', 'a row whose key a table has, appended', () => appendKeys(['a'])],
    ['duplicate-key', 'a key twice in one append', () => appendKeys(['b', 'b'])],
    ['other', 'a syntax error', () => connection.run('SELEC 1')],
    ['other', 'a conversion', () => connection.run("SELECT CAST('x' AS INTEGER)")],
  ];

  it.each(cases)('%s: %s', async (expected, _name, provoke) => {
    const error = await failure(provoke);
    expect(duckdbFailure(error), String(error)).toBe(expected);
    expect(firstLine(error)).not.toMatch(/\n/);
  });

  it('locked: a database another process writes, with that process named', async () => {
    const path = join(dir, 'held.duckdb');
    const holder = spawn(
      process.execPath,
      [
        '-e',
        `require('@duckdb/node-api').DuckDBInstance.create(${JSON.stringify(path)})` +
          `.then((db) => { globalThis.db = db; console.log('held'); setInterval(() => {}, 60000); })`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      await once(holder.stdout, 'data');
      const error = await failure(() => open(path, { access_mode: 'READ_ONLY' }));
      expect(duckdbFailure(error), String(error)).toBe('locked');
      expect(lockHolder(error)).toBe(String(holder.pid));
    } finally {
      holder.kill();
    }
  });
});

describe('the holder of a locked file, named truly (issue 29, item 9)', () => {
  it('a tds process by its command (tds mcp is not blamed on tds sync), never with the rest of its arguments', async () => {
    const holder = spawn(
      process.execPath,
      ['-e', "console.log('up'); setInterval(() => {}, 60000)", '/opt/tds/bin/tds.js', 'mcp', '--notify', 'https://hooks.example/s3cret'],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      await once(holder.stdout, 'data');
      expect(describeHolder(String(holder.pid))).toBe(`PID ${holder.pid} (tds mcp)`);
    } finally {
      holder.kill();
    }
    expect(describeHolder(undefined)).toBe('another process');
  });
});

describe('refusals by the system, in its own words', () => {
  it.each([
    ['ENOSPC', 'a full disk', '/dev/full'],
    ['EACCES', 'a folder the system refuses (sysfs)', '/sys/tds-test.csv'],
  ] as const)('%s: %s', async (code, _name, target) => {
    const memory = await open(':memory:');
    const writer = await memory.connect();
    try {
      const error = await failure(() => writer.run(`COPY (SELECT 1 AS a) TO '${target}' (FORMAT csv)`));
      expect(systemRefusal(error), String(error)).toBe(code);
    } finally {
      writer.closeSync();
      memory.closeSync();
    }
  });

  // Not to be provoked here (a quota, a size limit, a read-only mount): DuckDB passes strerror's text on, as above.
  it.each([
    ['EFBIG', 'IO Error: Could not write file "/x/a.parquet": File too large'],
    ['EDQUOT', 'IO Error: Could not write file "/x/a.parquet": Disk quota exceeded'],
    ['EROFS', 'IO Error: Cannot open file "/x/a.parquet": Read-only file system'],
  ])('%s', (code, message) => {
    expect(systemRefusal(new Error(message))).toBe(code);
  });

  it('none for anything else', () => {
    expect(systemRefusal(new Error('Parser Error: syntax error at or near "SELEC"'))).toBeUndefined();
  });
});

describe('nameHint: what to write for a name DuckDB did not find', () => {
  it.each([
    ['SELECT Last Contacted FROM people', 'a name with spaces needs double quotes: "Last Contacted"'],
    ['SELECT * FROM people WHERE Last Contacted > now()', 'a name with spaces needs double quotes: "Last Contacted"'],
    ['SELECT Nmae FROM people', 'did you mean "Name"?'],
    ['SELECT * FROM peple', 'did you mean people?'],
    ['SELECT * FROM nope', undefined],
    ['SELEC 1', undefined],
    ['SELECT * FROM people ORDER Name', undefined],
  ])('%s', async (sql, hint) => {
    const memory = await open(':memory:');
    const people = await memory.connect();
    try {
      await people.run('CREATE TABLE people ("Last Contacted" DATE, "Name" TEXT)');
      expect(nameHint(await failure(async () => people.extractStatements(sql).then(() => people.run(sql))))).toBe(hint);
    } finally {
      people.closeSync();
      memory.closeSync();
    }
  });
});

/** A copy of the mirror whose header names another storage version (checksum recomputed as DuckDB does). */
async function withStorageVersion(version: bigint): Promise<string> {
  const bytes = await readFile(mirror);
  bytes.writeBigUInt64LE(version, 12);
  const mask = (1n << 64n) - 1n;
  let sum = 5381n;
  for (let at = 8; at < 4096; at += 8) sum ^= (bytes.readBigUInt64LE(at) * 0xbf58476d1ce4e5b9n) & mask;
  bytes.writeBigUInt64LE(sum, 0);
  const path = join(dir, 'other-version.duckdb');
  await writeFile(path, bytes);
  return path;
}
