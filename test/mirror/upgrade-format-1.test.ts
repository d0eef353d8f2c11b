import type { DuckDBConnection } from '@duckdb/node-api';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/duckdb/engine.js';
import { upgradeFormat1 } from '../../src/mirror/history/upgrade-format-1.js';
import { formatVersion, openMirror } from '../../src/mirror/mirror-db.js';

// The upgrade of a mirror of format 1 (test/fixtures/mirror-format-1, written by the tds before history)
// is one transaction: a failure at any of its statements leaves the mirror exactly as it was.

const FIXTURE = new URL('../fixtures/mirror-format-1/mirror.duckdb.gz', import.meta.url);

let dir: string;
let path: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tds-upgrade-'));
  path = join(dir, 'mirror.duckdb');
  await writeFile(path, gunzipSync(await readFile(FIXTURE)));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Everything a user could see of the database: its objects with their columns, and every row of every table. */
async function contents(db: Database): Promise<string> {
  const objects = await db.connection.runAndReadAll(
    "SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = 'main' ORDER BY table_name, ordinal_position",
  );
  const macros = await db.connection.runAndReadAll(
    'SELECT function_name FROM duckdb_functions() WHERE NOT internal ORDER BY function_name',
  );
  const tables = await db.connection.runAndReadAll(
    "SELECT table_name, comment FROM duckdb_tables() WHERE schema_name = 'main' ORDER BY table_name",
  );
  const rows: unknown[] = [];
  for (const { table_name: table } of tables.getRowObjectsJS()) {
    const reader = await db.connection.runAndReadAll(`SELECT * FROM "${String(table)}" ORDER BY ALL`);
    rows.push(table, reader.getRowsJS());
  }
  return JSON.stringify([objects.getRowsJS(), macros.getRowsJS(), tables.getRowsJS(), rows], (_key, value: unknown) =>
    typeof value === 'bigint' ? value.toString() : value,
  );
}

/** The connection, failing at its `failAt`-th statement (as a crash there would leave the transaction). */
function failingAt(connection: DuckDBConnection, failAt: number): { connection: DuckDBConnection; statements: () => number } {
  let count = 0;
  const wrapped = new Proxy(connection, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if ((property !== 'run' && property !== 'runAndReadAll') || typeof value !== 'function') return value;
      return async (sql: string, ...rest: unknown[]) => {
        count += 1;
        if (count === failAt && !/^(COMMIT|ROLLBACK)/.test(sql)) throw new Error(`crash at statement ${failAt}`);
        return (value as (...args: unknown[]) => Promise<unknown>).call(target, sql, ...rest);
      };
    },
  });
  return { connection: wrapped, statements: () => count };
}

describe('upgradeFormat1', () => {
  it('a failure at any statement of the upgrade leaves the mirror as it was; without one, it is upgraded', async () => {
    const open = (): Promise<Database> => openDatabase(path, { readOnly: false, what: 'the mirror' });
    let db = await open();
    const before = await contents(db);
    const mark = (connection: DuckDBConnection) => async (): Promise<void> => {
      await connection.run("COMMENT ON TABLE _tds_tables IS 'tds mirror format 2'");
    };
    let failAt = 1;
    for (;;) {
      const { connection, statements } = failingAt(db.connection, failAt);
      const upgraded = await upgradeFormat1(connection, mark(connection)).then(
        () => true,
        () => false,
      );
      if (upgraded) {
        // only the last statement (COMMIT) is left to run without a failure
        expect(statements()).toBeLessThanOrEqual(failAt);
        break;
      }
      // reopened, as after a crash: exactly as it was
      db.close();
      db = await open();
      expect(await formatVersion(db)).toBe(1);
      expect(await contents(db), `failure at statement ${failAt}`).toBe(before);
      failAt += 1;
    }
    expect(failAt).toBeGreaterThan(10);
    db.close();
    db = await openMirror(path, { readOnly: true });
    expect(await formatVersion(db)).toBe(2);
    db.close();
  }, 120_000);
});
