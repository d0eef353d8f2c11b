import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/duckdb/engine.js';
import { TableDiff, type DiffKey, type DiffRecord, type Moment } from '../../src/mirror/diff/table-diff.js';

// The records of `tds diff` (and `tds sync --changes`, MCP's diff_table) as TableDiff streams them from
// a mirror table T and its history H: each value as an export writes it, in the order of the rows'
// latest `_updatedAt`, then `_id`.

const COLUMNS = '"_id" VARCHAR PRIMARY KEY, "_createdAt" TIMESTAMPTZ, "_updatedAt" TIMESTAMPTZ, "_syncId" INTEGER';
const HISTORY = `"_replacedBy" INTEGER, "_change" VARCHAR, "_replacedAt" TIMESTAMPTZ`;
const META: DiffKey[] = [
  { key: '_createdAt', type: 'TIMESTAMP WITH TIME ZONE', sql: '"_createdAt"' },
  { key: '_updatedAt', type: 'TIMESTAMP WITH TIME ZONE', sql: '"_updatedAt"' },
];

let dir: string;
let db: Database;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tds-table-diff-'));
  db = await openDatabase(join(dir, 'mirror.duckdb'), { readOnly: false, what: 'the mirror', memoryLimit: '64MB', threads: 1 });
});

afterEach(async () => {
  db.close();
  await rm(dir, { recursive: true, force: true });
});

/** T and H with the meta columns and `fields` (`"Label" TYPE`, …). */
async function createTables(connection: DuckDBConnection, fields: string[]): Promise<void> {
  const columns = [COLUMNS, ...fields].join(', ');
  await connection.run(`CREATE TABLE t (${columns})`);
  await connection.run(`CREATE TABLE h (${columns.replace(' PRIMARY KEY', '')}, ${HISTORY})`);
}

/** Sync 1 wrote `rows` versions; sync 2 replaced those with `_id` in `updated` by the values `change` gives. */
const diffOfSync2 = (connection: DuckDBConnection, keys: DiffKey[]): TableDiff =>
  new TableDiff(connection, { table: 't', historyTable: 'h' }, keys, { since: { kind: 'sync', n: 1 }, until: { kind: 'sync', n: 2 } });

async function collect(records: AsyncIterable<DiffRecord>): Promise<DiffRecord[]> {
  const all: DiffRecord[] = [];
  for await (const record of records) all.push(record);
  return all;
}

/**
 * T and H of every type of value: r1 updated (every value), r2 deleted, r3 added, r4 unchanged, r5
 * updated at the same moment as r1 (then by _id), all by sync 2; the keys compared.
 */
async function valuesOfEveryType(connection: DuckDBConnection): Promise<DiffKey[]> {
  const fields: [key: string, type: string][] = [
    ['Text', 'VARCHAR'],
    ['2024', 'DOUBLE'],
    ['Big', 'BIGINT'],
    ['Yes', 'BOOLEAN'],
    ['Tags', 'VARCHAR[]'],
    ['When', 'TIMESTAMP WITH TIME ZONE'],
    ['Qu"ote é', 'VARCHAR'],
  ];
  const quoted = (key: string): string => `"${key.replaceAll('"', '""')}"`;
  await createTables(
    connection,
    fields.map(([key, type]) => `${quoted(key)} ${type}`),
  );
  const keys: DiffKey[] = [...META, ...fields.map(([key, type]) => ({ key, type, sql: quoted(key) }))];
  const text = `'quote " backslash \\ tab ' || chr(9) || ' nl ' || chr(10) || ' ctl ' || chr(1) || ' del ' || chr(127) || ' ls ' || chr(8232) || ' emoji 🚀 é'`;
  await connection.run(
    `INSERT INTO h VALUES ('r1', '2026-01-01T00:00:00Z', '2026-01-01T00:00:01.5Z', 1, 'old', 3.0, 9007199254740993, false, ['a'], '1970-01-01T00:00:00Z', 'x', 2, 'updated', '2026-01-02T00:00:00.123456Z'),` +
      ` ('r2', '2026-01-01T00:00:00Z', '2026-01-01T00:00:02Z', 1, 'gone', -0.0, -1, true, [], NULL, NULL, 2, 'deleted', '2026-01-02T00:00:00Z'),` +
      ` ('r5', '2026-01-01T00:00:00Z', '2026-01-01T00:00:03Z', 1, 'same', 1e21, 0, NULL, NULL, NULL, 'y', 2, 'updated', '2026-01-02T00:00:00.123456Z')`,
  );
  await connection.run(
    `INSERT INTO t VALUES ('r1', '2026-01-01T00:00:00Z', '2026-01-02T00:00:00.123456Z', 2, ${text}, 0.1, 42, true, ['a', NULL, 'b"c'], '2026-03-01T12:00:00.999Z', NULL),` +
      ` ('r3', '2026-01-02T00:00:00Z', '2026-01-01T23:00:00Z', 2, NULL, 1.5e-7, NULL, NULL, NULL, '2026-01-02T00:00:00Z', 'z'),` +
      ` ('r4', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z', 1, 'kept', 1, 1, true, NULL, NULL, NULL),` +
      ` ('r5', '2026-01-01T00:00:00Z', '2026-01-02T00:00:00.123456Z', 2, 'same', 2.5, 0, NULL, NULL, NULL, 'y')`,
  );
  return keys;
}

describe('TableDiff.records', () => {
  it('writes each value as an export does, whatever its characters and type, in the order of the latest _updatedAt, then _id', async () => {
    const { connection } = db;
    const keys = await valuesOfEveryType(connection);
    const records = await collect(diffOfSync2(connection, keys).records());
    const text1 = 'quote " backslash \\ tab \t nl \n ctl \u0001 del \u007f ls \u2028 emoji 🚀 é';
    expect(records.map((record) => JSON.stringify(record))).toEqual([
      JSON.stringify({
        change: 'deleted',
        _id: 'r2',
        before: {
          _createdAt: '2026-01-01T00:00:00.000Z',
          _updatedAt: '2026-01-01T00:00:02.000Z',
          Text: 'gone',
          2024: -0,
          Big: -1,
          Yes: true,
          Tags: [],
          When: null,
          'Qu"ote é': null,
        },
        after: null,
      }),
      JSON.stringify({
        change: 'added',
        _id: 'r3',
        before: null,
        after: {
          _createdAt: '2026-01-02T00:00:00.000Z',
          _updatedAt: '2026-01-01T23:00:00.000Z',
          Text: null,
          2024: 1.5e-7,
          Big: null,
          Yes: null,
          Tags: null,
          When: '2026-01-02T00:00:00.000Z',
          'Qu"ote é': 'z',
        },
      }),
      JSON.stringify({
        change: 'updated',
        _id: 'r1',
        before: {
          _updatedAt: '2026-01-01T00:00:01.500Z',
          Text: 'old',
          2024: 3,
          Big: 2 ** 53, // 9007199254740993 as JSON.parse reads it
          Yes: false,
          Tags: ['a'],
          When: '1970-01-01T00:00:00.000Z',
          'Qu"ote é': 'x',
        },
        after: {
          _updatedAt: '2026-01-02T00:00:00.123Z',
          Text: text1,
          2024: 0.1,
          Big: 42,
          Yes: true,
          Tags: ['a', null, 'b"c'],
          When: '2026-03-01T12:00:00.999Z',
          'Qu"ote é': null,
        },
      }),
      JSON.stringify({
        change: 'updated',
        _id: 'r5',
        before: { _updatedAt: '2026-01-01T00:00:03.000Z', 2024: 1e21 },
        after: { _updatedAt: '2026-01-02T00:00:00.123Z', 2024: 2.5 },
      }),
    ]);
  });
});

describe('TableDiff between moments of every kind, and its summary', () => {
  // Each output as the comparison of whole snapshots gave it (the code before the versions were read by
  // span and the join sliced), kept byte for byte: records between a moment of the clock and a sync,
  // either way round, and now; the summary's counts and transitions.
  const spans: [since: Moment, until: Moment][] = [
    [
      { kind: 'time', at: '2026-01-01T12:00:00.000Z' },
      { kind: 'sync', n: 2 },
    ],
    [
      { kind: 'time', at: '2026-01-01T23:30:00.000Z' },
      { kind: 'sync', n: 2 },
    ],
    [
      { kind: 'sync', n: 2 },
      { kind: 'time', at: '2026-01-01T23:30:00.000Z' },
    ],
    [{ kind: 'sync', n: 1 }, { kind: 'now' }],
    [{ kind: 'time', at: '2026-01-01T23:30:00.000Z' }, { kind: 'now' }],
    [
      { kind: 'sync', n: 2 },
      { kind: 'sync', n: 1 },
    ],
    [
      { kind: 'sync', n: 0 },
      { kind: 'sync', n: 1 },
    ],
  ];
  it.each(spans)('records from %j to %j', async (since, until) => {
    const { connection } = db;
    const keys = await valuesOfEveryType(connection);
    const diff = new TableDiff(connection, { table: 't', historyTable: 'h' }, keys, { since, until });
    const records = (await collect(diff.records())).map((record) => JSON.stringify(record));
    expect(records).toEqual(PINNED_RECORDS[JSON.stringify([since, until])]);
  });

  it('summarizes the counts and the transitions of each key', async () => {
    const { connection } = db;
    const keys = await valuesOfEveryType(connection);
    const summary = await diffOfSync2(connection, keys).summary();
    expect(JSON.stringify(summary)).toBe(PINNED_SUMMARY);
  });
});

/** What the comparison of whole snapshots gave for each span of valuesOfEveryType (each record's JSON text). */
const PINNED_RECORDS: Record<string, string[]> = {
  '[{"kind":"sync","n":0},{"kind":"sync","n":1}]': [
    '{"change":"added","_id":"r4","before":null,"after":{"2024":1,"_createdAt":"2026-01-01T00:00:00.000Z","_updatedAt":"2026-01-01T00:00:00.000Z","Text":"kept","Big":1,"Yes":true,"Tags":null,"When":null,"Qu\\"ote \u00e9":null}}',
    '{"change":"added","_id":"r1","before":null,"after":{"2024":3,"_createdAt":"2026-01-01T00:00:00.000Z","_updatedAt":"2026-01-01T00:00:01.500Z","Text":"old","Big":9007199254740992,"Yes":false,"Tags":["a"],"When":"1970-01-01T00:00:00.000Z","Qu\\"ote \u00e9":"x"}}',
    '{"change":"added","_id":"r2","before":null,"after":{"2024":0,"_createdAt":"2026-01-01T00:00:00.000Z","_updatedAt":"2026-01-01T00:00:02.000Z","Text":"gone","Big":-1,"Yes":true,"Tags":[],"When":null,"Qu\\"ote \u00e9":null}}',
    '{"change":"added","_id":"r5","before":null,"after":{"2024":1e+21,"_createdAt":"2026-01-01T00:00:00.000Z","_updatedAt":"2026-01-01T00:00:03.000Z","Text":"same","Big":0,"Yes":null,"Tags":null,"When":null,"Qu\\"ote \u00e9":"y"}}',
  ],
  '[{"kind":"sync","n":1},{"kind":"now"}]': [
    '{"change":"deleted","_id":"r2","before":{"2024":0,"_createdAt":"2026-01-01T00:00:00.000Z","_updatedAt":"2026-01-01T00:00:02.000Z","Text":"gone","Big":-1,"Yes":true,"Tags":[],"When":null,"Qu\\"ote \u00e9":null},"after":null}',
    '{"change":"added","_id":"r3","before":null,"after":{"2024":1.5e-7,"_createdAt":"2026-01-02T00:00:00.000Z","_updatedAt":"2026-01-01T23:00:00.000Z","Text":null,"Big":null,"Yes":null,"Tags":null,"When":"2026-01-02T00:00:00.000Z","Qu\\"ote \u00e9":"z"}}',
    '{"change":"updated","_id":"r1","before":{"2024":3,"_updatedAt":"2026-01-01T00:00:01.500Z","Text":"old","Big":9007199254740992,"Yes":false,"Tags":["a"],"When":"1970-01-01T00:00:00.000Z","Qu\\"ote \u00e9":"x"},"after":{"2024":0.1,"_updatedAt":"2026-01-02T00:00:00.123Z","Text":"quote \\" backslash \\\\ tab \\t nl \\n ctl \\u0001 del \u007f ls \u2028 emoji \ud83d\ude80 \u00e9","Big":42,"Yes":true,"Tags":["a",null,"b\\"c"],"When":"2026-03-01T12:00:00.999Z","Qu\\"ote \u00e9":null}}',
    '{"change":"updated","_id":"r5","before":{"2024":1e+21,"_updatedAt":"2026-01-01T00:00:03.000Z"},"after":{"2024":2.5,"_updatedAt":"2026-01-02T00:00:00.123Z"}}',
  ],
  '[{"kind":"sync","n":2},{"kind":"sync","n":1}]': [
    '{"change":"updated","_id":"r1","before":{"2024":0.1,"_updatedAt":"2026-01-02T00:00:00.123Z","Text":"quote \\" backslash \\\\ tab \\t nl \\n ctl \\u0001 del \u007f ls \u2028 emoji \ud83d\ude80 \u00e9","Big":42,"Yes":true,"Tags":["a",null,"b\\"c"],"When":"2026-03-01T12:00:00.999Z","Qu\\"ote \u00e9":null},"after":{"2024":3,"_updatedAt":"2026-01-01T00:00:01.500Z","Text":"old","Big":9007199254740992,"Yes":false,"Tags":["a"],"When":"1970-01-01T00:00:00.000Z","Qu\\"ote \u00e9":"x"}}',
    '{"change":"added","_id":"r2","before":null,"after":{"2024":0,"_createdAt":"2026-01-01T00:00:00.000Z","_updatedAt":"2026-01-01T00:00:02.000Z","Text":"gone","Big":-1,"Yes":true,"Tags":[],"When":null,"Qu\\"ote \u00e9":null}}',
    '{"change":"updated","_id":"r5","before":{"2024":2.5,"_updatedAt":"2026-01-02T00:00:00.123Z"},"after":{"2024":1e+21,"_updatedAt":"2026-01-01T00:00:03.000Z"}}',
    '{"change":"deleted","_id":"r3","before":{"2024":1.5e-7,"_createdAt":"2026-01-02T00:00:00.000Z","_updatedAt":"2026-01-01T23:00:00.000Z","Text":null,"Big":null,"Yes":null,"Tags":null,"When":"2026-01-02T00:00:00.000Z","Qu\\"ote \u00e9":"z"},"after":null}',
  ],
  '[{"kind":"sync","n":2},{"kind":"time","at":"2026-01-01T23:30:00.000Z"}]': [
    '{"change":"updated","_id":"r1","before":{"2024":0.1,"_updatedAt":"2026-01-02T00:00:00.123Z","Text":"quote \\" backslash \\\\ tab \\t nl \\n ctl \\u0001 del \u007f ls \u2028 emoji \ud83d\ude80 \u00e9","Big":42,"Yes":true,"Tags":["a",null,"b\\"c"],"When":"2026-03-01T12:00:00.999Z","Qu\\"ote \u00e9":null},"after":{"2024":3,"_updatedAt":"2026-01-01T00:00:01.500Z","Text":"old","Big":9007199254740992,"Yes":false,"Tags":["a"],"When":"1970-01-01T00:00:00.000Z","Qu\\"ote \u00e9":"x"}}',
    '{"change":"added","_id":"r2","before":null,"after":{"2024":0,"_createdAt":"2026-01-01T00:00:00.000Z","_updatedAt":"2026-01-01T00:00:02.000Z","Text":"gone","Big":-1,"Yes":true,"Tags":[],"When":null,"Qu\\"ote \u00e9":null}}',
    '{"change":"updated","_id":"r5","before":{"2024":2.5,"_updatedAt":"2026-01-02T00:00:00.123Z"},"after":{"2024":1e+21,"_updatedAt":"2026-01-01T00:00:03.000Z"}}',
  ],
  '[{"kind":"time","at":"2026-01-01T12:00:00.000Z"},{"kind":"sync","n":2}]': [
    '{"change":"deleted","_id":"r2","before":{"2024":0,"_createdAt":"2026-01-01T00:00:00.000Z","_updatedAt":"2026-01-01T00:00:02.000Z","Text":"gone","Big":-1,"Yes":true,"Tags":[],"When":null,"Qu\\"ote \u00e9":null},"after":null}',
    '{"change":"added","_id":"r3","before":null,"after":{"2024":1.5e-7,"_createdAt":"2026-01-02T00:00:00.000Z","_updatedAt":"2026-01-01T23:00:00.000Z","Text":null,"Big":null,"Yes":null,"Tags":null,"When":"2026-01-02T00:00:00.000Z","Qu\\"ote \u00e9":"z"}}',
    '{"change":"updated","_id":"r1","before":{"2024":3,"_updatedAt":"2026-01-01T00:00:01.500Z","Text":"old","Big":9007199254740992,"Yes":false,"Tags":["a"],"When":"1970-01-01T00:00:00.000Z","Qu\\"ote \u00e9":"x"},"after":{"2024":0.1,"_updatedAt":"2026-01-02T00:00:00.123Z","Text":"quote \\" backslash \\\\ tab \\t nl \\n ctl \\u0001 del \u007f ls \u2028 emoji \ud83d\ude80 \u00e9","Big":42,"Yes":true,"Tags":["a",null,"b\\"c"],"When":"2026-03-01T12:00:00.999Z","Qu\\"ote \u00e9":null}}',
    '{"change":"updated","_id":"r5","before":{"2024":1e+21,"_updatedAt":"2026-01-01T00:00:03.000Z"},"after":{"2024":2.5,"_updatedAt":"2026-01-02T00:00:00.123Z"}}',
  ],
  '[{"kind":"time","at":"2026-01-01T23:30:00.000Z"},{"kind":"now"}]': [
    '{"change":"deleted","_id":"r2","before":{"2024":0,"_createdAt":"2026-01-01T00:00:00.000Z","_updatedAt":"2026-01-01T00:00:02.000Z","Text":"gone","Big":-1,"Yes":true,"Tags":[],"When":null,"Qu\\"ote \u00e9":null},"after":null}',
    '{"change":"updated","_id":"r1","before":{"2024":3,"_updatedAt":"2026-01-01T00:00:01.500Z","Text":"old","Big":9007199254740992,"Yes":false,"Tags":["a"],"When":"1970-01-01T00:00:00.000Z","Qu\\"ote \u00e9":"x"},"after":{"2024":0.1,"_updatedAt":"2026-01-02T00:00:00.123Z","Text":"quote \\" backslash \\\\ tab \\t nl \\n ctl \\u0001 del \u007f ls \u2028 emoji \ud83d\ude80 \u00e9","Big":42,"Yes":true,"Tags":["a",null,"b\\"c"],"When":"2026-03-01T12:00:00.999Z","Qu\\"ote \u00e9":null}}',
    '{"change":"updated","_id":"r5","before":{"2024":1e+21,"_updatedAt":"2026-01-01T00:00:03.000Z"},"after":{"2024":2.5,"_updatedAt":"2026-01-02T00:00:00.123Z"}}',
  ],
  '[{"kind":"time","at":"2026-01-01T23:30:00.000Z"},{"kind":"sync","n":2}]': [
    '{"change":"deleted","_id":"r2","before":{"2024":0,"_createdAt":"2026-01-01T00:00:00.000Z","_updatedAt":"2026-01-01T00:00:02.000Z","Text":"gone","Big":-1,"Yes":true,"Tags":[],"When":null,"Qu\\"ote \u00e9":null},"after":null}',
    '{"change":"updated","_id":"r1","before":{"2024":3,"_updatedAt":"2026-01-01T00:00:01.500Z","Text":"old","Big":9007199254740992,"Yes":false,"Tags":["a"],"When":"1970-01-01T00:00:00.000Z","Qu\\"ote \u00e9":"x"},"after":{"2024":0.1,"_updatedAt":"2026-01-02T00:00:00.123Z","Text":"quote \\" backslash \\\\ tab \\t nl \\n ctl \\u0001 del \u007f ls \u2028 emoji \ud83d\ude80 \u00e9","Big":42,"Yes":true,"Tags":["a",null,"b\\"c"],"When":"2026-03-01T12:00:00.999Z","Qu\\"ote \u00e9":null}}',
    '{"change":"updated","_id":"r5","before":{"2024":1e+21,"_updatedAt":"2026-01-01T00:00:03.000Z"},"after":{"2024":2.5,"_updatedAt":"2026-01-02T00:00:00.123Z"}}',
  ],
};
/** What it gave as the summary from sync 1 to sync 2. */
const PINNED_SUMMARY =
  '{"counts":{"added":1,"updated":2,"deleted":1},"keys":[{"key":"_updatedAt","changed":2,"transitions":[{"before":"2026-01-01T00:00:01.500Z","after":"2026-01-02T00:00:00.123Z","count":1},{"before":"2026-01-01T00:00:03.000Z","after":"2026-01-02T00:00:00.123Z","count":1}],"more":0},{"key":"Text","changed":1,"transitions":[{"before":"old","after":"quote \\" backslash \\\\ tab \\t nl \\n ctl \\u0001 del \u007f ls \u2028 emoji \ud83d\ude80 \u00e9","count":1}],"more":0},{"key":"2024","changed":2,"transitions":[{"before":3,"after":0.1,"count":1},{"before":1e+21,"after":2.5,"count":1}],"more":0},{"key":"Big","changed":1,"transitions":[{"before":"9007199254740993","after":42,"count":1}],"more":0},{"key":"Yes","changed":1,"transitions":[{"before":false,"after":true,"count":1}],"more":0},{"key":"Tags","changed":1,"transitions":[{"before":["a"],"after":["a",null,"b\\"c"],"count":1}],"more":0},{"key":"When","changed":1,"transitions":[{"before":"1970-01-01T00:00:00.000Z","after":"2026-03-01T12:00:00.999Z","count":1}],"more":0},{"key":"Qu\\"ote \u00e9","changed":1,"transitions":[{"before":"x","after":null,"count":1}],"more":0}]}';

describe('TableDiff.records in slices and parts', () => {
  // More values than one join takes (SLICE_BYTES) and than one sorted part holds (PART_BYTES): the rows are
  // joined a range of IDs at a time and read a part at a time, and still come out whole, each once, in the
  // order of the latest _updatedAt, then _id, within a sync's 64 MB. An ID's order is the reverse of its
  // rows' order, so a slice or part read out of turn shows.
  const ROWS = 6_000;
  const PADS = 9;
  const pads = Array.from({ length: PADS }, (_, i) => `Pad ${i}`);
  const deleted = (i: number): boolean => i % 10 === 0;
  const added = (i: number): boolean => i % 10 === 1;
  const id = (i: number): string => `row${String(i).padStart(5, '0')}`;
  const at = (day: string, seconds: number): string => new Date(Date.parse(`${day}T00:00:00Z`) + seconds * 1000).toISOString();

  it(`streams ${ROWS} rows of ${PADS} cells of 200 characters updated, added and deleted, within 64 MB`, async () => {
    const { connection } = db;
    await createTables(
      connection,
      pads.map((pad) => `"${pad}" VARCHAR`),
    );
    const padValues = (letter: string): string => pads.map((_, p) => `repeat('${letter}', 199) || '${p}'`).join(', ');
    // before: every row but the added ones, written by sync 1 and replaced (or deleted) by sync 2
    await connection.run(
      `INSERT INTO h SELECT 'row' || lpad(i::VARCHAR, 5, '0'), TIMESTAMPTZ '2026-01-01', TIMESTAMPTZ '2026-01-01' + INTERVAL (i) SECOND, 1, ` +
        `${padValues('a')}, 2, CASE WHEN i % 10 = 0 THEN 'deleted' ELSE 'updated' END, TIMESTAMPTZ '2026-01-03' FROM range(${ROWS}) r(i) WHERE i % 10 <> 1`,
    );
    // after: every row but the deleted ones, updated later the smaller its number
    await connection.run(
      `INSERT INTO t SELECT 'row' || lpad(i::VARCHAR, 5, '0'), TIMESTAMPTZ '2026-01-01', TIMESTAMPTZ '2026-01-02' + INTERVAL (${ROWS} - i) SECOND, 2, ` +
        `${padValues('b')} FROM range(${ROWS}) r(i) WHERE i % 10 <> 0`,
    );
    const keys: DiffKey[] = [...META, ...pads.map((pad) => ({ key: pad, type: 'VARCHAR', sql: `"${pad}"` }))];
    const values = (letter: string): Record<string, string> => Object.fromEntries(pads.map((pad, p) => [pad, `${letter.repeat(199)}${p}`]));
    const before = (i: number): Record<string, unknown> => ({ _updatedAt: at('2026-01-01', i), ...values('a') });
    const after = (i: number): Record<string, unknown> => ({ _updatedAt: at('2026-01-02', ROWS - i), ...values('b') });
    const all = (record: Record<string, unknown>): Record<string, unknown> => ({ _createdAt: '2026-01-01T00:00:00.000Z', ...record });
    // the deleted rows first (their latest _updatedAt is the day before), then the others from the last row to the first
    const order = [
      ...Array.from({ length: ROWS }, (_, i) => i).filter(deleted),
      ...Array.from({ length: ROWS }, (_, i) => ROWS - 1 - i).filter((i) => !deleted(i)),
    ];
    const expected = order.map((i) =>
      deleted(i)
        ? { change: 'deleted', _id: id(i), before: all(before(i)), after: null }
        : added(i)
          ? { change: 'added', _id: id(i), before: null, after: all(after(i)) }
          : { change: 'updated', _id: id(i), before: before(i), after: after(i) },
    );
    let next = 0;
    for await (const record of diffOfSync2(connection, keys).records()) {
      // compared as they come, not collected: 6,000 records of 4 KB held at once would be the test's memory, not the diff's
      expect(JSON.stringify(record)).toBe(JSON.stringify(expected[next]));
      next += 1;
    }
    expect(next).toBe(ROWS);
  });
});
