import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/duckdb/engine.js';
import type { StoredField } from '../../src/mirror/schema-drift.js';
import { errorFigures } from '../../src/stats/figures.js';

// The failure causes of an action column as `tds stats` lists them (issue 29, item 14): what differs
// only in a number or a quote style is one cause, and a cause and its example are bounded in length
// while the count keeps every row.

let db: Database;
const field = { statusKey: 'Enrich.status', errorKey: 'Enrich.error' } as StoredField;
const long = `Provider said: ${'z'.repeat(100_000)}`;

beforeAll(async () => {
  db = await openDatabase(':memory:', { readOnly: false, what: 'a test database' });
  await db.connection.run('CREATE TABLE t ("_id" VARCHAR, "Enrich.status" VARCHAR, "Enrich.error" VARCHAR)');
  const rows = [
    ['r1', 'Timeout after 30s'],
    ['r2', 'Timeout after 45.5s'],
    ['r3', `User 'ada' not found`],
    ['r4', 'User "bob" not found'],
    ['r5', long],
    ['r6', `${long}!`],
    ['r7', long],
  ];
  for (const [id, message] of rows) await db.connection.run(`INSERT INTO t VALUES ($1, 'failed', $2)`, [id!, message!]);
});
afterAll(() => db?.close());

describe('errorFigures', () => {
  it('folds decimals and quote styles, and bounds causes and examples with the full count kept', async () => {
    const figures = await errorFigures(db.connection, 't', field);
    expect(figures.causes).toBe(3);
    const byCause = new Map(figures.errors.map((error) => [error.cause, error]));
    expect(byCause.get('Timeout after <n>s')).toMatchObject({ count: 2, example: 'Timeout after 30s', ids: ['r1', 'r2'] });
    expect(byCause.get('User "<text>" not found')).toMatchObject({ count: 2, ids: ['r3', 'r4'] });
    const cut = figures.errors.find((error) => error.cause.startsWith('Provider said:'))!;
    expect(cut.count).toBe(3);
    expect(cut.cause).toBe(`Provider said: ${'z'.repeat(185)}…`);
    expect(cut.example).toBe(`${long.slice(0, 500)}…`);
    expect(cut.ids).toEqual(['r5', 'r6', 'r7']);
  });
});
