import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { test as it, type Harness } from '../helpers/emulator-fixture.js';

// A field retyped between two of the service's types: the lake's older files hold the old type. Read
// together by name, DuckDB would cast them all to one type, which fails (text as JSON, text as a list, a
// number as a date) or reads otherwise than the mirror converted them. `tds lake check`, the README's
// DuckDB queries and `tds lake compact` must read them as the mirror did, partitions written on time or late.

/** Values of each type as the service holds them; text that reads as JSON, a number, a boolean or a date too. */
const VALUES: Record<string, unknown[]> = {
  text: ['hello', '7', 'true', '{"a":1}', '2025-03-01T00:00:00.000Z'],
  number: [2, 2.5, -1],
  boolean: [true, false],
  date: ['2025-03-01T00:00:00.000Z', '2024-12-31T23:59:59.500Z'],
  object: [{ city: 'Oslo', zip: '0150' }, { n: 2 }],
  select: ['new', 'won'],
  multi_select: [['vip'], ['vip', 'smb']],
};

const OPTIONS = [
  { label: 'New', value: 'new' },
  { label: 'Won', value: 'won' },
  { label: 'VIP', value: 'vip' },
  { label: 'SMB', value: 'smb' },
];

const withOptions = (type: string): { type: string; options?: typeof OPTIONS } =>
  type.endsWith('select') ? { type, options: OPTIONS } : { type };

// Pairs whose older files DuckDB's own cast cannot read in the newer type (text or a date as JSON, text
// as a list, a number as a date, JSON as text…) or reads otherwise than the mirror converted them (an
// object as a list, a number as a boolean), and pairs it reads (a number or a date as JSON); each with its
// first partition written before the retype ("on time") or after it ("late").
const RETYPES: Array<[from: string, to: string, written: 'on time' | 'late']> = [
  ['text', 'object', 'on time'],
  ['text', 'object', 'late'],
  ['object', 'text', 'late'],
  ['number', 'object', 'on time'],
  ['date', 'object', 'late'],
  ['select', 'multi_select', 'on time'],
  ['multi_select', 'text', 'late'],
  ['object', 'multi_select', 'on time'],
  ['number', 'date', 'on time'],
  ['date', 'number', 'late'],
  ['number', 'boolean', 'on time'],
  ['text', 'number', 'on time'],
];

interface RetypedTable {
  /** `FROM_to_TO_WRITTEN`: the mirror table, and its folder in the lake */
  folder: string;
  id: string;
  field: string;
  to: string;
  written: 'on time' | 'late';
  rows: string[];
}

/** The same for every table: its columns of the mirror's table as it is now (the kept columns of a retype are no part of the lake). */
async function mirrorColumns(harness: Harness, table: RetypedTable): Promise<string> {
  const result = await harness.tds(['sql', `DESCRIBE SELECT * FROM ${table.folder}_at_sync(1000000000)`, '--format', 'json']);
  expect(result.code, result.stderr).toBe(0);
  return (JSON.parse(result.stdout) as Array<{ column_name: string }>).map((c) => `"${c.column_name.replace(/"/g, '""')}"`).join(', ');
}

/** `(a EXCEPT ALL b) UNION ALL (b EXCEPT ALL a)` of two relations, by each row's JSON text. */
const symmetricDifference = (a: string, b: string): string =>
  `(SELECT to_json(x)::VARCHAR AS j FROM ${a} x EXCEPT ALL SELECT to_json(y)::VARCHAR FROM ${b} y)
   UNION ALL (SELECT to_json(y)::VARCHAR FROM ${b} y EXCEPT ALL SELECT to_json(x)::VARCHAR FROM ${a} x)`;

interface Recipe {
  /** The comment line the query follows in the README's DuckDB section, without `-- `. */
  title: string;
  /** The mirror's relation the query must equal. */
  mirror: (table: RetypedTable) => string;
  /** The sync 42 of the query stands for. */
  asOf?: (table: RetypedTable) => number;
}

/**
 * Each table folder's README query, run as written from the lake's folder, all in one statement: the
 * tables whose rows differ from the mirror's, every column compared.
 */
async function recipesNotMirror(
  harness: Harness,
  lake: string,
  tables: readonly RetypedTable[],
  { title, mirror, asOf }: Recipe,
): Promise<Array<{ folder: string; rows: number }>> {
  const columns = await mirrorColumns(harness, tables[0]!);
  const counts: string[] = [];
  for (const table of tables) {
    const readme = await readFile(join(lake, table.folder, 'README.md'), 'utf8');
    const body = readme.slice(readme.indexOf('\n', readme.indexOf(`-- ${title}`)) + 1);
    const recipe = body.slice(0, body.indexOf(';\n'));
    const query = asOf === undefined ? recipe : recipe.replace(/\b42\b/g, String(asOf(table)));
    const differ = symmetricDifference(`(SELECT ${columns} FROM (${query}))`, `(SELECT ${columns} FROM ${mirror(table)})`);
    counts.push(`SELECT '${table.folder}' AS folder, count(*)::INTEGER AS rows FROM (${differ})`);
  }
  const statement = `SELECT * FROM (${counts.join(' UNION ALL ')}) WHERE rows > 0`;
  const result = await harness.tds(['sql', '--files', statement, '--format', 'json'], { cwd: lake });
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as Array<{ folder: string; rows: number }>;
}

/** `tds lake check` exits 0 with every table matching, and each README's "now" reads the mirror. */
async function expectLakeIsMirror(harness: Harness, lake: string, tables: readonly RetypedTable[]): Promise<void> {
  const check = await harness.tds(['lake', 'check', lake]);
  expect(check.code, check.stderr).toBe(0);
  for (const table of tables) expect(check.stderr).toMatch(new RegExp(`${table.folder}: the lake matches the mirror`));
  const now = (table: RetypedTable): string => `${table.folder}_at_sync(1000000000)`;
  expect(await recipesNotMirror(harness, lake, tables, { title: 'now', mirror: now })).toEqual([]);
}

/** A table of a text field and a field A of type `from` holding each value of that type. */
async function createTable(harness: Harness, [from, to, written]: (typeof RETYPES)[number]): Promise<RetypedTable> {
  const created = await harness.admin<{ table: { id: string }; fields: Array<{ id: string }> }>('POST', '/tables', {
    workspace: 'Sales',
    name: `${from} to ${to} ${written}`,
    fields: [
      { label: 'Name', type: 'text' },
      { label: 'A', ...withOptions(from) },
    ],
  });
  const id = created.table.id;
  const rows = await harness.admin<{ rows: Array<{ id: string }> }>('POST', `/tables/${id}/rows`, {
    rows: VALUES[from]!.map((value, k) => ({ cells: { Name: `${from} ${k}`, A: value } })),
  });
  const folder = `${from}_to_${to}_${written.replace(' ', '_')}`;
  return { folder, id, field: created.fields[1]!.id, to, written, rows: rows.rows.map((row) => row.id) };
}

describe('a retyped field in the lake', () => {
  // a dozen tables synced to the lake three times, checked and compacted: more than one test's usual time
  it(
    "every retype between the service's types: lake check, the README's queries and compaction read older files as the mirror converted them",
    { timeout: 120_000 },
    async ({ open }) => {
      const harness = await open();
      const lake = join(harness.dir, 'lake');
      const tables: RetypedTable[] = [];
      for (const retype of RETYPES) tables.push(await createTable(harness, retype));
      const ids = (written?: string): string[] =>
        tables.filter((table) => written === undefined || table.written === written).map((table) => table.id);
      const onTime = await harness.tds(['sync', ...ids('on time'), '--lake', lake]);
      expect(onTime.code, onTime.stderr).toBe(0);
      const late = await harness.tds(['sync', ...ids('late')]);
      expect(late.code, late.stderr).toBe(0);

      // retyped; rows of the new type added, and one older row given a value of it
      for (const table of tables) {
        await harness.admin('PATCH', `/tables/${table.id}/fields/${table.field}`, withOptions(table.to));
        await harness.admin('POST', `/tables/${table.id}/rows`, {
          rows: VALUES[table.to]!.map((value, k) => ({ cells: { Name: `${table.to} ${k}`, A: value } })),
        });
        await harness.admin('PATCH', `/tables/${table.id}/rows/${table.rows[0]}`, { cells: { A: VALUES[table.to]![0] } });
      }
      const retyped = await harness.tds(['sync', ...ids(), '--lake', lake]);
      expect(retyped.code, retyped.stderr).toBe(0);
      await expectLakeIsMirror(harness, lake, tables);

      // as of each table's first sync: its partition of the older type alone
      const firstSync = new Map<string, number>();
      for (const table of tables) {
        const partitions = await readdir(join(lake, table.folder, 'changes'));
        firstSync.set(table.folder, Math.min(...partitions.map((name) => Number(/^sync_id=(\d+)$/.exec(name)?.[1] ?? Infinity))));
      }
      const asOf = (table: RetypedTable): number => firstSync.get(table.folder)!;
      const mirror = (table: RetypedTable): string => `${table.folder}_at_sync(${asOf(table)})`;
      expect(await recipesNotMirror(harness, lake, tables, { title: 'as of sync 42', mirror, asOf })).toEqual([]);

      // compacted with the changes kept (the snapshot in the newest types, the older files still there), then a sync after it
      const compact = await harness.tds(['lake', 'compact', lake]);
      expect(compact.code, compact.stderr).toBe(0);
      for (const table of tables) {
        await harness.admin('PATCH', `/tables/${table.id}/rows/${table.rows[1]}`, { cells: { Name: 'after the snapshot' } });
      }
      const after = await harness.tds(['sync', ...ids(), '--full', '--lake', lake]);
      expect(after.code, after.stderr).toBe(0);
      await expectLakeIsMirror(harness, lake, tables);
    },
  );
});
