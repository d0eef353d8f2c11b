import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TdsError } from '../../src/core/errors.js';
import type { Database } from '../../src/duckdb/engine.js';
import { runQuery, type QueryOptions } from '../../src/mcp/run-query.js';
import { openMirror } from '../../src/mirror/mirror-db.js';

// query_sql's statement: in tds sql's sandbox (read-only, no file access, one statement), within a time
// limit; the first rows and the full count, DuckDB's refusals in query_sql's words.

let dir: string;
let db: Database;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tds-run-query-'));
  const path = join(dir, 'mirror.duckdb');
  const writer = await openMirror(path, { readOnly: false });
  await writer.connection.run('CREATE TABLE leads AS SELECT range AS n, \'lead \' || range AS "Name" FROM range(1000)');
  writer.close();
  await writeFile(join(dir, 'secret.csv'), 'a,b\n1,2\n');
  db = await openMirror(path, { readOnly: true, access: { files: false } });
});
afterAll(async () => {
  db?.close();
  await rm(dir, { recursive: true, force: true });
});

const options = (overrides: Partial<QueryOptions> = {}): QueryOptions => ({
  limit: 10,
  signal: new AbortController().signal,
  timeoutMs: 60_000,
  onAbandoned: () => undefined,
  ...overrides,
});

/** The failure a statement ends with. */
async function failure(sql: string, overrides: Partial<QueryOptions> = {}): Promise<TdsError> {
  const error = await runQuery(db, sql, options(overrides)).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error, sql).toBeInstanceOf(TdsError);
  return error as TdsError;
}

describe('runQuery', () => {
  it('gives the first rows, one more to tell there are more, and the full count', async () => {
    const result = await runQuery(db, 'SELECT n, "Name" FROM leads ORDER BY n -- the first ones\n;', options({ limit: 3 }));
    expect(result.columns).toEqual(['n', 'Name']);
    expect(result.rows).toEqual([0, 1, 2, 3].map((n) => ({ n, Name: `lead ${n}` })));
    expect(result.rowCount).toBe(1000);
    const all = await runQuery(db, 'SELECT n FROM leads WHERE n < 5', options());
    expect(all).toMatchObject({ rowCount: 5, rows: [0, 1, 2, 3, 4].map((n) => ({ n })) });
  });

  it('counts by reading the rows of a statement that is not a query', async () => {
    const result = await runQuery(db, "SELECT * FROM duckdb_settings() WHERE name LIKE 'enable_%'", options({ limit: 1 }));
    const described = await runQuery(db, 'DESCRIBE leads', options({ limit: 1 }));
    expect(described).toMatchObject({ rowCount: 2, columns: expect.arrayContaining(['column_name', 'column_type']) });
    expect(result.rows).toHaveLength(2);
    expect(result.rowCount).toBeGreaterThan(2);
  });

  it('gives values as JSON: big integers exact, instants and dates as ISO text, lists and structs', async () => {
    const result = await runQuery(
      db,
      "SELECT 12345678901234567890::HUGEINT AS big, 42::BIGINT AS small, TIMESTAMPTZ '2024-01-02 03:04:05+00' AS at, " +
        "DATE '2024-01-02' AS day, [1, 2] AS list, {'a': 'x'} AS struct, NULL AS nothing, true AS yes",
      options(),
    );
    expect(result.rows).toEqual([
      {
        big: '12345678901234567890',
        small: 42,
        at: '2024-01-02T03:04:05.000Z',
        day: '2024-01-02',
        list: [1, 2],
        struct: { a: 'x' },
        nothing: null,
        yes: true,
      },
    ]);
  });

  it.each([
    ["COPY leads TO 'OUT/copy.csv'", /^SQL: .*disabled by configuration/],
    ["COPY (SELECT 1) TO 'OUT/copy.parquet' (FORMAT parquet)", /^SQL: .*disabled by configuration/],
    // DuckDB lets a database write its own files: refused by the statement's type
    ["COPY leads TO 'DIR/mirror.duckdb' (USE_TMP_FILE false)", /^SQL: COPY reads and writes files/],
    ["EXPORT DATABASE 'OUT/export'", /^SQL: .*disabled by configuration/],
    ["SELECT * FROM read_csv('DIR/secret.csv')", /^SQL: .*(disabled|Permission)/],
    ["SELECT * FROM read_text('DIR/secret.csv')", /^SQL: .*(disabled|Permission)/],
    ["ATTACH 'OUT/other.duckdb' AS other", /^SQL: ATTACH opens a database file/],
    ['INSTALL httpfs', /^SQL: /],
    ['LOAD httpfs', /^SQL: /],
    ['CREATE TABLE made (a INTEGER)', /^SQL: .*read-only/],
    ["CREATE VIEW v AS SELECT * FROM read_csv('DIR/secret.csv')", /^SQL: /],
    ['SET enable_external_access = true', /^SQL: .*(locked|configuration)/],
    ['SELECT 1; SELECT 2', /runs one statement; this text holds 2/],
  ])('refuses %s, and nothing is written', async (template, message) => {
    const sql = template.replaceAll('OUT', join(dir, 'out')).replaceAll('DIR', dir);
    const error = await failure(sql);
    expect(error.exitCode).toBe(2);
    expect(error.message).toMatch(message);
    expect(error.hint ?? '').not.toContain('--files');
    expect(await readdir(dir)).toEqual(expect.not.arrayContaining(['out', 'out.csv']));
    const tables = await runQuery(db, 'SELECT table_name FROM duckdb_tables() ORDER BY 1', options());
    expect(tables.rows).toEqual([
      { table_name: '_tds_columns' },
      { table_name: '_tds_pass' },
      { table_name: '_tds_syncs' },
      { table_name: '_tds_tables' },
      { table_name: 'leads' },
    ]);
  });

  it("says what the agent can do: the mirror's tables, read-only", async () => {
    expect(await failure("SELECT * FROM read_csv('x.csv')")).toMatchObject({
      hint: expect.stringMatching(/^query_sql reads the mirror's tables and nothing else/),
    });
    expect(await failure('SELECT * FROM nope')).toMatchObject({
      hint: expect.stringMatching(/^list_tables gives the mirror's table names/),
    });
    expect(await failure('DELETE FROM leads')).toMatchObject({ hint: 'query_sql only reads; the mirror changes through sync_tables' });
  });

  it('stops a statement at the time limit, and one whose call is cancelled', async () => {
    const slow = 'SELECT sum(hash(range)) FROM range(100000000000)';
    const late = await failure(slow, { timeoutMs: 200 });
    expect(late.message).toBe('SQL: the statement ran longer than 0.2 s and was stopped');
    expect(late.hint).toMatch(/^aggregate in SQL/);
    const controller = new AbortController();
    const cancelled = runQuery(db, slow, options({ signal: controller.signal }));
    controller.abort();
    await expect(cancelled).rejects.toMatchObject({ code: 'INTERRUPTED' });
    // the connection is free again
    expect((await runQuery(db, 'SELECT count(*) AS n FROM leads', options())).rows).toEqual([{ n: 1000 }]);
  });
});
