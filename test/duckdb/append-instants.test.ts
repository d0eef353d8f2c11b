import { describe, expect, it } from 'vitest';
import { openRowAppender } from '../../src/duckdb/append-rows.js';
import { openDatabase } from '../../src/duckdb/engine.js';

// The appender counts an instant in the minute of the one before it from that minute's start: each value must
// still be what DuckDB's cast of its text gives, whatever the instants around it (the same minute with any
// seconds, a tail that is not the service's form, the next minute, day or year, nulls between them).

const INSTANTS = [
  '2026-11-27T12:14:00.000Z',
  '2026-11-27T12:14:37.000Z',
  '2026-11-27T12:14:37.999Z',
  '2026-11-27T12:14:59.999Z',
  // the same minute, not the service's form: cast by DuckDB
  '2026-11-27T12:14:37.5Z',
  '2026-11-27T12:14:37.123456Z',
  '2026-11-27T12:14:37.000+02:00',
  '2026-11-27T12:14:09.001Z',
  null,
  '2026-11-27T12:14:08.000Z',
  '2026-11-27T12:13:59.999Z',
  '2026-11-27T12:14:01.000Z',
  '2026-11-28T12:14:01.000Z',
  '2026-11-27T00:00:00.000Z',
  '2026-11-26T23:59:59.999Z',
  '2026-11-26T23:59:00.000Z',
  '1969-12-31T23:59:59.999Z',
  '1969-12-31T23:59:00.001Z',
  '2000-02-29T23:59:30.000Z',
  '2000-03-01T00:00:30.000Z',
  '2024-12-31T23:59:30.000Z',
  '2025-01-01T00:00:30.000Z',
  '2025-01-01T00:00:30.000Z',
];

describe('openRowAppender, instants', () => {
  it('counts instants that share a minute as DuckDB casts their text', async () => {
    const db = await openDatabase(':memory:', { readOnly: false, what: 'the test database' });
    try {
      await db.connection.run('CREATE TABLE appended (i INTEGER, happened TIMESTAMPTZ)');
      await db.connection.run('CREATE TABLE texts (i INTEGER, text VARCHAR)');
      const appender = await openRowAppender(db, { name: 'appended' }, ['BIGINT', 'TIMESTAMPTZ']);
      const texts = await openRowAppender(db, { name: 'texts' }, ['BIGINT', 'VARCHAR']);
      // the list whole, then from each place on (a page may begin anywhere in a minute)
      const rows = INSTANTS.flatMap((_, start) => INSTANTS.slice(start)).map((text, i) => [i, text]);
      for (let start = 0; start < rows.length; start += 7) await appender.append(rows.slice(start, start + 7));
      await texts.append(rows);
      appender.close();
      texts.close();
      const reader = await db.connection.runAndReadAll(
        'SELECT count(*)::INTEGER AS n, count(*) FILTER (WHERE a.happened IS NOT DISTINCT FROM CAST(t.text AS TIMESTAMPTZ))::INTEGER AS same ' +
          'FROM appended a JOIN texts t USING (i)',
      );
      expect(reader.getRowObjectsJS()[0]).toEqual({ n: rows.length, same: rows.length });
      const some = await db.connection.runAndReadAll(
        'SELECT epoch_ms(happened)::DOUBLE AS ms FROM appended WHERE i IN (1, 3, 16) ORDER BY i',
      );
      expect(some.getRowObjectsJS().map((row) => row.ms)).toEqual(
        ['2026-11-27T12:14:37.000Z', '2026-11-27T12:14:59.999Z', '1969-12-31T23:59:59.999Z'].map(Date.parse),
      );
    } finally {
      db.close();
    }
  });
});
