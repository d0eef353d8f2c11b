import { describe, expect, it } from 'vitest';
import { openRowAppender, type AppendType } from '../../src/duckdb/append-rows.js';
import { openDatabase, type Database } from '../../src/duckdb/engine.js';
import { quoteIdent } from '../../src/duckdb/sql-text.js';
import type { TypedValue } from '../../src/records/typed-values.js';

// Typed rows appended straight into DuckDB's vectors must hold what DuckDB's own cast of each value's
// text gives (the way rows took before, as one JSON text each): compared here value by value, over
// pages that fill data chunks across calls and cross their edges, with nulls in some chunks only.

const TYPES: AppendType[] = ['VARCHAR', 'DOUBLE', 'BOOLEAN', 'TIMESTAMPTZ', 'VARCHAR[]', 'JSON', 'BIGINT'];
/** Column names a SQL text would trip on. */
const NAMES = ['_id', 'Amount "net"', 'a.b', 'Signed Up 🚀', "it's", '', 'x'.repeat(300)].map((name, i) => `${name}${i}`);

const TEXTS = ['', 'plain', 'a\u0000b', 'emoji 🚀 ok', 'lone \ud800 surrogate', '"quoted", \\ back', 'x'.repeat(5000), 'multi\nline\r\n'];
const DOUBLES = [0, -0, 1.5, -2.25, 2 ** 53, 2 ** 53 + 2, 2 ** 60 + 1, 1e21, 1.7976931348623157e308, 5e-324, -1e-7, 0.1 + 0.2];
const INSTANTS = [
  '2026-11-27T12:14:37.000Z',
  '1970-01-01T00:00:00.000Z',
  '1969-12-31T23:59:59.999Z',
  '0000-01-01T00:00:00.000Z',
  '0099-02-28T23:59:59.999Z',
  '1600-02-29T00:00:00.001Z',
  '2000-02-29T12:00:00.000Z',
  '2100-03-01T00:00:00.000Z',
  '9999-12-31T23:59:59.999Z',
  // not the service's own form: cast by DuckDB itself
  '2026-11-27 12:14:37+02',
  '2026-11-27T12:14:37.123456Z',
  '2026-11-27',
];
const LISTS = [[], ['a'], ['a', '', 'b\u0000c', '🚀'], ['lone \udfff']];
const JSONS = ['{}', '{"a":1,"b":[true,null]}', '"text"', '123456789012345678901234567890', '{"member":{"id":"u_1","name":"Ada 🚀"}}'];

/** Row i: every value of the lists above in turn, and nulls in the chunks of rows 2048 to 4095 only. */
function row(i: number): TypedValue[] {
  const pick = <T>(values: readonly T[]): T => values[i % values.length]!;
  const nulls = i >= 2048 && i < 4096 && i % 3 === 0;
  return [
    pick(TEXTS),
    nulls ? null : pick(DOUBLES),
    nulls ? null : i % 2 === 0,
    nulls ? null : pick(INSTANTS),
    nulls ? null : pick(LISTS),
    nulls ? null : pick(JSONS),
    i,
  ];
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** The text a value took into DuckDB before: its item of the row's JSON text (strings made well-formed first). */
function textOf(value: TypedValue): string | null {
  if (value === null) return null;
  if (typeof value === 'string') return value;
  return JSON.stringify(Array.isArray(value) ? value.map((item: string) => item.replace(LONE_SURROGATE, '\ufffd')) : value);
}

async function withDatabase(run: (db: Database) => Promise<void>): Promise<void> {
  const db = await openDatabase(':memory:', { readOnly: false, what: 'the test database' });
  try {
    await run(db);
  } finally {
    db.close();
  }
}

describe('openRowAppender', () => {
  it('appends typed rows that equal DuckDB’s cast of their text, in order, across chunk edges', async () => {
    await withDatabase(async (db) => {
      const columns = TYPES.map((type, i) => `${quoteIdent(NAMES[i]!)} ${type}`).join(', ');
      await db.connection.run(`CREATE TABLE appended (${columns})`);
      await db.connection.run(`CREATE TABLE cast_text (${TYPES.map((_, i) => `t${i} VARCHAR`).join(', ')})`);
      const appender = await openRowAppender(db, { name: 'appended' }, TYPES);
      const rows = Array.from({ length: 5000 }, (_, i) => row(i));
      // pages of 100 and one of 2100 (more than a chunk), then a flush in the middle of a chunk
      for (let start = 0; start < 2000; start += 100) await appender.append(rows.slice(start, start + 100));
      await appender.append(rows.slice(2000, 4100));
      appender.flush();
      await appender.append(rows.slice(4100));
      appender.close();

      const texts = await openRowAppender(
        db,
        { name: 'cast_text' },
        TYPES.map(() => 'VARCHAR'),
      );
      await texts.append(rows.map((values) => values.map(textOf)));
      texts.close();
      const cast = TYPES.map((type, i) => {
        if (type === 'VARCHAR') return `t${i}`;
        if (type === 'VARCHAR[]') return `CAST(CAST(t${i} AS JSON) AS VARCHAR[])`;
        return `CAST(t${i} AS ${type})`;
      });
      const ordered = quoteIdent(NAMES[6]!);
      const reader = await db.connection.runAndReadAll(
        `SELECT count(*)::INTEGER AS n FROM (SELECT * FROM appended EXCEPT ALL SELECT ${cast.join(', ')} FROM cast_text)`,
      );
      expect(reader.getRowObjectsJS()[0]?.n).toBe(0);
      const counted = await db.connection.runAndReadAll(
        `SELECT count(*)::INTEGER AS n, count(${quoteIdent(NAMES[1]!)})::INTEGER AS doubles, bool_and(${ordered} = rowid) AS in_order FROM appended`,
      );
      expect(counted.getRowObjectsJS()[0]).toEqual({ n: 5000, doubles: 5000 - 683, in_order: true });
      // -0 is 0 (as its text was), the lone surrogate U+FFFD, the NUL kept
      const some = await db.connection.runAndReadAll(
        `SELECT ${quoteIdent(NAMES[0]!)} AS text, ${quoteIdent(NAMES[1]!)}::VARCHAR AS number FROM appended WHERE ${ordered} IN (1, 2, 4) ORDER BY ${ordered}`,
      );
      expect(some.getRowObjectsJS()).toEqual([
        { text: 'plain', number: '0.0' },
        { text: 'a\u0000b', number: '1.5' },
        { text: 'lone \ufffd surrogate', number: '9007199254740992.0' },
      ]);
    });
  });

  it('fails as DuckDB’s cast fails on an instant it cannot read', async () => {
    await withDatabase(async (db) => {
      await db.connection.run('CREATE TABLE instants (happened TIMESTAMPTZ)');
      const appender = await openRowAppender(db, { name: 'instants' }, ['TIMESTAMPTZ']);
      await expect(appender.append([['2026-11-27T12:14:37.000Z'], ['not a time']])).rejects.toThrow(/not a time/);
      appender.discard();
    });
  });

  it('drops the rows not flushed when discarded', async () => {
    await withDatabase(async (db) => {
      await db.connection.run('CREATE TABLE kept (n BIGINT)');
      const appender = await openRowAppender(db, { name: 'kept' }, ['BIGINT']);
      await appender.append([[1], [2]]);
      appender.flush();
      await appender.append([[3]]);
      appender.discard();
      const reader = await db.connection.runAndReadAll('SELECT list(n ORDER BY n)::VARCHAR AS n FROM kept');
      expect(reader.getRowObjectsJS()[0]?.n).toBe('[1, 2]');
    });
  });
});
