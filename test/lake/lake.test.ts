import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { addEveryTypeRows } from '../e2e/sync-support.js';
import { everyTypeTable } from '../mirror/helpers.js';
import { lakeFolder } from '../../src/lake/lake.js';
import { test as it, type Harness, useOpenOfEachTest } from '../helpers/emulator-fixture.js';

// `tds sync --lake DIR` and `tds lake`: the lake read back with DuckDB as a reader would (its own SQL
// here, not the README's), compared with the mirror row for row, now and as of each sync.

const openHarness = useOpenOfEachTest();

async function sql<T = Record<string, unknown>>(harness: Harness, query: string): Promise<T[]> {
  const result = await harness.tds(['sql', '--files', query, '--format', 'ndjson']);
  expect(result.code, result.stderr).toBe(0);
  return result.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as T);
}

const changes = (lake: string, table: string): string =>
  `read_parquet('${lake}/${table}/changes/sync_id=*/*.parquet', hive_partitioning = true, union_by_name = true)`;

/** The table from the lake's changes up to sync `upTo`: each row's newest version unless it is a tombstone. */
const lakeAt = (lake: string, table: string, upTo = 1e9): string =>
  `(SELECT * EXCLUDE (_n, _change, _valid_from, sync_id) FROM (
     SELECT *, row_number() OVER (PARTITION BY _id ORDER BY sync_id DESC) AS _n FROM ${changes(lake, table)} WHERE sync_id <= ${upTo}
   ) WHERE _n = 1 AND _change <> 'deleted')`;

/** Rows in one relation and not the other, both ways (0 when equal as multisets), compared by their JSON text. */
async function difference(harness: Harness, a: string, b: string): Promise<number> {
  const rows = await sql<{ n: number }>(
    harness,
    `WITH a AS (SELECT to_json(x)::VARCHAR AS j FROM ${a} x), b AS (SELECT to_json(y)::VARCHAR AS j FROM ${b} y)
     SELECT count(*) AS n FROM ((SELECT j FROM a EXCEPT ALL SELECT j FROM b) UNION ALL (SELECT j FROM b EXCEPT ALL SELECT j FROM a))`,
  );
  return Number(rows[0]!.n);
}

/** A table of a text field and a number field (labels given) with `count` rows: `n{k}` and k. */
async function textAndNumberTable(
  harness: Harness,
  name: string,
  [textLabel, numberLabel]: [string, string],
  count: number,
): Promise<{ id: string; text: string; number: string; rows: string[] }> {
  const created = await harness.admin<{ table: { id: string }; fields: Array<{ id: string }> }>('POST', '/tables', {
    workspace: 'Sales',
    name,
    fields: [
      { label: textLabel, type: 'text' },
      { label: numberLabel, type: 'number' },
    ],
  });
  const [text, number] = created.fields.map((field) => field.id);
  const rows = await harness.admin<{ rows: Array<{ id: string }> }>('POST', `/tables/${created.table.id}/rows`, {
    rows: Array.from({ length: count }, (_, k) => ({ cells: { [text!]: `n${k}`, [number!]: k } })),
  });
  return { id: created.table.id, text: text!, number: number!, rows: rows.rows.map((row) => row.id) };
}

const mirrorColumns = async (harness: Harness, table: string): Promise<string> =>
  (await sql<{ column_name: string }>(harness, `DESCRIBE ${table}`)).map((c) => `"${c.column_name.replace(/"/g, '""')}"`).join(', ');

describe('tds sync --lake', () => {
  it('writes each sync that changed something as a partition; now and as of each sync equal the mirror', async () => {
    const harness = await openHarness();
    const lake = join(harness.dir, 'lake');
    const table = await everyTypeTable(harness);
    const ids = await addEveryTypeRows(harness, table.id, { count: 30, from: 1 });
    const first = await harness.tds(['sync', table.id, '--lake', lake]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toMatch(/every_type: 30 versions to the lake \(sync_id=1\)/);
    expect(await sql(harness, `SELECT _change, count(*) AS n FROM ${changes(lake, 'every_type')} GROUP BY ALL`)).toEqual([
      { _change: 'inserted', n: 30 },
    ]);

    // edits of two rows, one deletion, one new row, and a field added
    await harness.admin('PATCH', `/tables/${table.id}/rows/${ids[0]}`, { cells: { Name: 'edited 0' } });
    await harness.admin('PATCH', `/tables/${table.id}/rows/${ids[1]}`, { cells: { Amount: 99 } });
    await harness.admin('DELETE', `/tables/${table.id}/rows/${ids[2]}`);
    await harness.admin('POST', `/tables/${table.id}/fields`, { label: 'Region', type: 'text' });
    await addEveryTypeRows(harness, table.id, { count: 1, from: 100 });
    const second = await harness.tds(['sync', table.id, '--full', '--lake', lake]);
    expect(second.code, second.stderr).toBe(0);
    expect(
      await sql(harness, `SELECT _change, count(*) AS n FROM ${changes(lake, 'every_type')} WHERE sync_id = 2 GROUP BY ALL ORDER BY 1`),
    ).toEqual([
      { _change: 'deleted', n: 1 },
      { _change: 'inserted', n: 1 },
      { _change: 'updated', n: 2 },
    ]);
    // the field added later is in the later file only
    const firstFile = await sql(harness, `DESCRIBE SELECT * FROM read_parquet('${lake}/every_type/changes/sync_id=1/*.parquet')`);
    expect(firstFile.map((c) => c.column_name)).not.toContain('Region');

    // a sync that changed nothing writes nothing
    const third = await harness.tds(['sync', table.id, '--lake', lake]);
    expect(third.code, third.stderr).toBe(0);
    expect((await readdir(join(lake, 'every_type', 'changes'))).sort()).toEqual(['sync_id=1', 'sync_id=2']);

    const columns = await mirrorColumns(harness, 'every_type');
    const now = `(SELECT ${columns} FROM ${lakeAt(lake, 'every_type')})`;
    expect(await difference(harness, now, `(SELECT ${columns} FROM every_type)`)).toBe(0);
    const atOne = `(SELECT ${columns} FROM ${lakeAt(lake, 'every_type', 1)})`;
    expect(await difference(harness, atOne, `(SELECT ${columns} FROM every_type_at_sync(1))`)).toBe(0);
    expect(await sql(harness, `SELECT count(*) AS n FROM ${atOne}`)).toEqual([{ n: 30 }]);

    const check = await harness.tds(['lake', 'check', lake]);
    expect(check.code, check.stderr).toBe(0);
    expect(check.stderr).toMatch(/every_type: the lake matches the mirror \(30 rows\)/);
    // tds stats names the table's folder in the lake
    const stats = await harness.tds(['stats', 'every_type', '--no-sync', '--format', 'json']);
    expect(stats.code, stats.stderr).toBe(0);
    expect((JSON.parse(stats.stdout) as { table: { lake: string } }).table.lake).toBe(join(lake, 'every_type'));
    const readme = await readFile(join(lake, 'every_type', 'README.md'), 'utf8');
    expect(readme).toMatch(/## DuckDB[\s\S]*## Spark SQL[\s\S]*## Trino/);
    // the README's DuckDB recipes, run as written from the lake's folder
    const recipe = (title: string): string => new RegExp(`-- ${title}\\n([^;]+);`).exec(readme)![1]!;
    const inLake = async (query: string): Promise<string> => {
      const result = await harness.tds(['sql', '--files', `COPY (${query}) TO 'recipe.parquet' (FORMAT parquet)`], { cwd: lake });
      expect(result.code, result.stderr).toBe(0);
      return `(SELECT ${columns} FROM read_parquet('${join(lake, 'recipe.parquet')}'))`;
    };
    expect(await difference(harness, await inLake(recipe('now')), `(SELECT ${columns} FROM every_type)`)).toBe(0);
    const asOf = recipe("as of sync 42 \\(the mirror's every_type_at_sync\\(42\\)\\)").replaceAll('42', '1');
    expect(await difference(harness, await inLake(asOf), `(SELECT ${columns} FROM every_type_at_sync(1))`)).toBe(0);
  });

  it('a lost partition is written again by the next sync; lake check says when the lake differs', async () => {
    const harness = await openHarness();
    const lake = join(harness.dir, 'lake');
    const table = await everyTypeTable(harness);
    const ids = await addEveryTypeRows(harness, table.id, { count: 10, from: 1 });
    expect((await harness.tds(['sync', table.id, '--lake', lake])).code).toBe(0);
    await harness.admin('DELETE', `/tables/${table.id}/rows/${ids[0]}`);
    expect((await harness.tds(['sync', table.id, '--full', '--lake', lake])).code).toBe(0);
    // a partition lost (removed by hand, or a copy of the lake that missed it)
    await rm(join(lake, 'every_type', 'changes', 'sync_id=2'), { recursive: true });
    const differs = await harness.tds(['lake', 'check', lake]);
    expect(differs.code).toBe(9);
    expect(differs.stderr).toMatch(/every_type: the lake differs: mirror 9 rows .* lake 10 rows/);
    expect((await harness.tds(['sync', table.id, '--lake', lake])).code).toBe(0);
    expect((await harness.tds(['lake', 'check', lake])).code).toBe(0);
  });

  it('a partition written late holds the types of its sync: number, then date, then text, the first partition written after the first retype', async () => {
    const harness = await openHarness();
    const lake = join(harness.dir, 'lake');
    const table = await textAndNumberTable(harness, 'Retyped Twice', ['A', 'N'], 30);
    expect((await harness.tds(['sync', table.id])).code).toBe(0);
    await harness.admin('PATCH', `/tables/${table.id}/fields/${table.number}`, { type: 'date' });
    // sync 1's partition is written now, after N became a date: it holds N as the number it was then
    expect((await harness.tds(['sync', table.id, '--lake', lake])).code).toBe(0);
    await harness.admin('PATCH', `/tables/${table.id}/fields/${table.number}`, { type: 'text' });
    expect((await harness.tds(['sync', table.id, '--lake', lake])).code).toBe(0);
    const types = await sql<{ t: string }>(
      harness,
      `SELECT DISTINCT typeof("N") AS t FROM read_parquet('${lake}/retyped_twice/changes/sync_id=1/*.parquet')`,
    );
    expect(types).toEqual([{ t: 'DOUBLE' }]);
    const checked = await harness.tds(['lake', 'check', lake]);
    expect(checked.code, checked.stderr).toBe(0);
  });

  it('a mirrored table never synced to the lake is named, not compared; one whose folder is gone differs', async () => {
    const harness = await openHarness();
    const lake = join(harness.dir, 'lake');
    const inLake = await everyTypeTable(harness);
    const mirrorOnly = await everyTypeTable(harness, 'Mirror Only');
    await addEveryTypeRows(harness, inLake.id, { count: 3, from: 1 });
    await addEveryTypeRows(harness, mirrorOnly.id, { count: 2, from: 1 });
    expect((await harness.tds(['sync', mirrorOnly.id])).code).toBe(0);
    expect((await harness.tds(['sync', inLake.id, '--lake', lake])).code).toBe(0);
    const checked = await harness.tds(['lake', 'check', lake]);
    expect(checked.code, checked.stderr).toBe(0);
    expect(checked.stderr).toMatch(/every_type: the lake matches the mirror \(3 rows\)/);
    expect(checked.stderr).toMatch(/mirror_only: not in this lake \(never synced with --lake to it\); not compared/);
    // a folder the mirror records as written and that is gone is a lake that differs, not one never made
    await rm(join(lake, 'every_type'), { recursive: true });
    const differs = await harness.tds(['lake', 'check', lake]);
    expect(differs.code).toBe(9);
    expect(differs.stderr).toMatch(/every_type: the lake differs: mirror 3 rows .* lake 0 rows/);
    const empty = await harness.tds(['lake', 'check', join(harness.dir, 'no-lake')]);
    expect(empty.code).not.toBe(0);
    expect(empty.stderr).toMatch(/holds none of the mirror's tables/);
  });

  it('compaction keeps now and as-of identical; --drop-changes removes what the snapshot holds', async () => {
    const harness = await openHarness();
    const lake = join(harness.dir, 'lake');
    const table = await everyTypeTable(harness);
    const ids = await addEveryTypeRows(harness, table.id, { count: 12, from: 1 });
    expect((await harness.tds(['sync', table.id, '--lake', lake])).code).toBe(0);
    await harness.admin('PATCH', `/tables/${table.id}/rows/${ids[3]}`, { cells: { Name: 'edited' } });
    await harness.admin('DELETE', `/tables/${table.id}/rows/${ids[4]}`);
    expect((await harness.tds(['sync', table.id, '--full', '--lake', lake])).code).toBe(0);

    const compact = await harness.tds(['lake', 'compact', lake, '--drop-changes']);
    expect(compact.code, compact.stderr).toBe(0);
    expect(compact.stderr).toMatch(/every_type: 13 versions into snapshot\/as_of=2; [\d.]+ MB of changes removed/);
    expect(await readdir(join(lake, 'every_type', 'changes')).catch(() => [])).toEqual([]);

    const snapshot = `read_parquet('${lake}/every_type/snapshot/as_of=2/*.parquet')`;
    const columns = await mirrorColumns(harness, 'every_type');
    expect(
      await difference(harness, `(SELECT ${columns} FROM ${snapshot} WHERE _valid_to IS NULL)`, `(SELECT ${columns} FROM every_type)`),
    ).toBe(0);
    const atOne = `(SELECT ${columns} FROM ${snapshot} WHERE "_syncId" <= 1 AND ("_replacedBy" IS NULL OR "_replacedBy" > 1))`;
    expect(await difference(harness, atOne, `(SELECT ${columns} FROM every_type_at_sync(1))`)).toBe(0);

    // changes after the snapshot, then a second compaction that carries the first one's current versions on
    await harness.admin('PATCH', `/tables/${table.id}/rows/${ids[5]}`, { cells: { Name: 'edited again' } });
    expect((await harness.tds(['sync', table.id, '--full', '--lake', lake])).code).toBe(0);
    expect((await harness.tds(['lake', 'check', lake])).code).toBe(0);
    expect((await harness.tds(['lake', 'compact', lake])).code).toBe(0);
    expect(await readdir(join(lake, 'every_type', 'snapshot'))).toEqual(['as_of=3']);
    const second = `read_parquet('${lake}/every_type/snapshot/as_of=3/*.parquet')`;
    expect(
      await difference(harness, `(SELECT ${columns} FROM ${second} WHERE _valid_to IS NULL)`, `(SELECT ${columns} FROM every_type)`),
    ).toBe(0);
    const againAtOne = `(SELECT ${columns} FROM ${second} WHERE "_syncId" <= 1 AND ("_replacedBy" IS NULL OR "_replacedBy" > 1))`;
    expect(await difference(harness, againAtOne, `(SELECT ${columns} FROM every_type_at_sync(1))`)).toBe(0);
    expect((await harness.tds(['lake', 'check', lake])).code).toBe(0);
  });
});

describe('the lake: names and drift', () => {
  it.each([
    ['../../etc', 'etc'],
    ['a/b', 'a_b'],
    ['x=1', 'x_1'],
    ['.hidden', 'hidden'],
    ['_tds_tables', 'tds_tables'],
    ['🚀', 'table'],
    ['..', 'table'],
  ])('the table folder of %j is %j', (name, folder) => {
    expect(lakeFolder(name)).toBe(folder);
  });

  it('a name of 300 characters is cut to 100 with a hash that keeps two such names apart', () => {
    const a = lakeFolder(`${'a'.repeat(299)}b`);
    const b = lakeFolder(`${'a'.repeat(299)}c`);
    expect(a).toHaveLength(100);
    expect(a).not.toBe(b);
    expect(a).toMatch(/^[a-z0-9_]+$/);
  });

  it('a hostile table name makes one safe folder inside the lake; a retyped field keeps its old type in older files', async () => {
    const harness = await openHarness();
    const lake = join(harness.dir, 'lake');
    const created = await harness.admin<{ table: { id: string }; fields: Array<{ id: string }> }>('POST', '/tables', {
      workspace: 'Sales',
      name: `../=🚀 ${'z'.repeat(300)}`,
      fields: [{ label: 'Score', type: 'number' }],
    });
    const id = created.table.id;
    const rows = await harness.admin<{ rows: Array<{ id: string }> }>('POST', `/tables/${id}/rows`, {
      rows: [{ cells: { Score: 5 } }, { cells: { Score: 7 } }],
    });
    expect((await harness.tds(['sync', id, '--lake', lake])).code).toBe(0);
    const [folder, ...others] = (await readdir(lake)).filter((name) => !name.startsWith('.'));
    expect(others).toEqual([]);
    expect(folder).toMatch(/^[a-z0-9_]{1,100}$/);

    await harness.admin('PATCH', `/tables/${id}/fields/${created.fields[0]!.id}`, { type: 'text' });
    await harness.admin('POST', `/tables/${id}/rows`, { rows: [{ cells: { Score: 'high' } }] });
    const synced = await harness.tds(['sync', id, '--lake', lake]);
    expect(synced.code, synced.stderr).toBe(0);
    const typeIn = async (syncId: number): Promise<string> =>
      String(
        (
          await sql<{ column_type: string }>(
            harness,
            `DESCRIBE SELECT "Score" FROM read_parquet('${lake}/${folder}/changes/sync_id=${syncId}/*.parquet')`,
          )
        )[0]!.column_type,
      );
    expect(await typeIn(1)).toBe('DOUBLE');
    expect(await typeIn(2)).toBe('VARCHAR');
    // read together by name, the values of both files are there
    expect(
      (await sql<{ Score: string }>(harness, `SELECT "Score" FROM ${changes(lake, folder!)} ORDER BY sync_id, "Score"`)).map(
        (r) => r.Score,
      ),
    ).toEqual(['5.0', '7.0', 'high']);
    // the column the retype kept in the mirror is not part of the lake
    expect(await typeIn(2).then(() => sql(harness, `DESCRIBE SELECT * FROM ${changes(lake, folder!)}`))).not.toContainEqual(
      expect.objectContaining({ column_name: expect.stringMatching(/Score \(/) }),
    );
    // the mirror converted 5 to "5": the README's "now" and lake check read the older file's values the same way
    const mirrorTable = (await sql<{ mirror_table: string }>(harness, `SELECT mirror_table FROM _tds_tables WHERE table_id = '${id}'`))[0]!
      .mirror_table;
    const mirrorScores = (await sql<{ Score: string }>(harness, `SELECT "Score" FROM "${mirrorTable}" ORDER BY 1`)).map((r) => r.Score);
    expect(mirrorScores).toEqual(['5', '7', 'high']);
    const nowScores = async (): Promise<string[]> => {
      const readme = await readFile(join(lake, folder!, 'README.md'), 'utf8');
      const now = /-- now\n([^;]+);/.exec(readme)![1]!;
      const result = await harness.tds(['sql', '--files', `SELECT "Score" FROM (${now}) ORDER BY 1`, '--format', 'ndjson'], { cwd: lake });
      expect(result.code, result.stderr).toBe(0);
      return result.stdout
        .split('\n')
        .filter(Boolean)
        .map((line) => (JSON.parse(line) as { Score: string }).Score);
    };
    expect(await nowScores()).toEqual(mirrorScores);
    const check = await harness.tds(['lake', 'check', lake, '--json']);
    expect(check.code, check.stderr).toBe(0);
    expect(check.stderr).toMatch(/the lake matches the mirror \(3 rows\)/);
    expect((JSON.parse(check.stdout) as Array<{ retyped: string[] }>)[0]!.retyped).toEqual(['Score']);
    // a value that differs in the retyped column only is seen
    await harness.admin('PATCH', `/tables/${id}/rows/${rows.rows[0]!.id}`, { cells: { Score: 'changed' } });
    expect((await harness.tds(['sync', id])).code).toBe(0);
    expect((await harness.tds(['lake', 'check', lake])).code).toBe(9);
    expect((await harness.tds(['sync', id, '--lake', lake])).code).toBe(0);
    // compaction holds the retyped column in the type readers get, converted as the mirror converted it
    const compact = await harness.tds(['lake', 'compact', lake]);
    expect(compact.code, compact.stderr).toBe(0);
    expect((await harness.tds(['lake', 'check', lake])).code).toBe(0);
    expect(await nowScores()).toEqual(['7', 'changed', 'high']);
  });
});

describe('a relabelled field in the lake', () => {
  interface Created {
    id: string;
    name: string;
    score: string;
    rows: string[];
  }

  /** A table "Relabelled" of fields Name and Score with 6 rows. */
  async function relabelledTable(harness: Harness): Promise<Created> {
    const table = await textAndNumberTable(harness, 'Relabelled', ['Name', 'Score'], 6);
    return { id: table.id, name: table.text, score: table.number, rows: table.rows };
  }

  const syncLake = async (harness: Harness, id: string, lake: string, ...flags: string[]): Promise<void> => {
    const synced = await harness.tds(['sync', id, ...flags, '--lake', lake]);
    expect(synced.code, synced.stderr).toBe(0);
  };

  /**
   * `tds lake check` exits 0, and the README's "now" query, run as written from the lake's folder, holds
   * the mirror's values, each mirror column read from the lake column `lakeName` gives (its own name else),
   * and no other column of a field.
   */
  async function expectLakeIsMirror(harness: Harness, lake: string, lakeName: Record<string, string>): Promise<string> {
    const check = await harness.tds(['lake', 'check', lake]);
    expect(check.code, check.stderr).toBe(0);
    const readme = await readFile(join(lake, 'relabelled', 'README.md'), 'utf8');
    const now = /-- now\n([^;]+);/.exec(readme)![1]!;
    const copied = await harness.tds(['sql', '--files', `COPY (${now}) TO 'recipe.parquet' (FORMAT parquet)`], { cwd: lake });
    expect(copied.code, copied.stderr).toBe(0);
    const recipe = `read_parquet('${join(lake, 'recipe.parquet')}')`;
    const mirror = (await sql<{ column_name: string }>(harness, 'DESCRIBE relabelled')).map((c) => c.column_name);
    const quote = (key: string): string => `"${key.replace(/"/g, '""')}"`;
    const fromLake = mirror.map((key) => `${quote(lakeName[key] ?? key)} AS ${quote(key)}`).join(', ');
    const fromMirror = mirror.map(quote).join(', ');
    expect(await difference(harness, `(SELECT ${fromLake} FROM ${recipe})`, `(SELECT ${fromMirror} FROM relabelled)`)).toBe(0);
    const read = (await sql<{ column_name: string }>(harness, `DESCRIBE SELECT * FROM ${recipe}`)).map((c) => c.column_name);
    const own = ['_change', '_valid_from', 'sync_id'];
    expect(read.filter((key) => !own.includes(key)).sort()).toEqual(mirror.map((key) => lakeName[key] ?? key).sort());
    await rm(join(lake, 'recipe.parquet'));
    return readme;
  }

  it('relabelled between two --lake syncs: the lake keeps the first name in every file, the README says the mirror name', async () => {
    const harness = await openHarness();
    const lake = join(harness.dir, 'lake');
    const table = await relabelledTable(harness);
    await syncLake(harness, table.id, lake);
    await harness.admin('PATCH', `/tables/${table.id}/fields/${table.name}`, { label: 'Title' });
    await harness.admin('PATCH', `/tables/${table.id}/rows/${table.rows[0]}`, { cells: { [table.name]: 'edited' } });
    await syncLake(harness, table.id, lake, '--full');
    const readme = await expectLakeIsMirror(harness, lake, { Title: 'Name' });
    expect(readme).toContain('`"Name"` is `"Title"`');
    const columns = await sql<{ column_name: string }>(
      harness,
      `DESCRIBE SELECT * FROM read_parquet('${lake}/relabelled/changes/sync_id=2/*.parquet')`,
    );
    expect(columns.map((c) => c.column_name)).toContain('Name');
  });

  it('relabelled before a partition is written late: that partition names the field as the ones before it', async () => {
    const harness = await openHarness();
    const lake = join(harness.dir, 'lake');
    const table = await relabelledTable(harness);
    await syncLake(harness, table.id, lake);
    // sync 2 without --lake; its partition is written by sync 3, after the relabel
    await harness.admin('PATCH', `/tables/${table.id}/rows/${table.rows[1]}`, { cells: { [table.name]: 'before the relabel' } });
    expect((await harness.tds(['sync', table.id, '--full'])).code).toBe(0);
    await harness.admin('PATCH', `/tables/${table.id}/fields/${table.name}`, { label: 'Title' });
    await harness.admin('PATCH', `/tables/${table.id}/rows/${table.rows[2]}`, { cells: { [table.name]: 'after the relabel' } });
    await syncLake(harness, table.id, lake, '--full');
    expect((await readdir(join(lake, 'relabelled', 'changes'))).sort()).toEqual(['sync_id=1', 'sync_id=2', 'sync_id=3']);
    await expectLakeIsMirror(harness, lake, { Title: 'Name' });
  });

  it('a folder written before the names were kept gets them at its next sync, then keeps them across a relabel', async () => {
    const harness = await openHarness();
    const lake = join(harness.dir, 'lake');
    const table = await relabelledTable(harness);
    await syncLake(harness, table.id, lake);
    const identityFile = join(lake, 'relabelled', '_table.json');
    const { columns, ...older } = JSON.parse(await readFile(identityFile, 'utf8')) as { columns?: unknown };
    expect(columns).toBeDefined();
    await writeFile(identityFile, JSON.stringify(older));
    await harness.admin('PATCH', `/tables/${table.id}/rows/${table.rows[4]}`, { cells: { [table.score]: 40 } });
    await syncLake(harness, table.id, lake, '--full');
    await harness.admin('PATCH', `/tables/${table.id}/fields/${table.name}`, { label: 'Title' });
    await harness.admin('PATCH', `/tables/${table.id}/rows/${table.rows[5]}`, { cells: { [table.name]: 'after the relabel' } });
    await syncLake(harness, table.id, lake, '--full');
    await expectLakeIsMirror(harness, lake, { Title: 'Name' });
  });

  it('a new field labelled as a relabelled field was: it takes a name of its own in the lake', async () => {
    const harness = await openHarness();
    const lake = join(harness.dir, 'lake');
    const table = await relabelledTable(harness);
    await syncLake(harness, table.id, lake);
    await harness.admin('PATCH', `/tables/${table.id}/fields/${table.name}`, { label: 'Title' });
    const added = await harness.admin<{ field: { id: string } }>('POST', `/tables/${table.id}/fields`, { label: 'Name', type: 'text' });
    await harness.admin('PATCH', `/tables/${table.id}/rows/${table.rows[3]}`, { cells: { [added.field.id]: 'the new field' } });
    await syncLake(harness, table.id, lake, '--full');
    const readme = await expectLakeIsMirror(harness, lake, { Title: 'Name', Name: `Name (${added.field.id})` });
    expect(readme).toContain(`\`"Name (${added.field.id})"\` is \`"Name"\``);
  });

  it('a relabelled field whose values were cut: the mirror names it anew in _truncated, the lake by its first name; lake check agrees', async () => {
    const harness = await openHarness();
    const lake = join(harness.dir, 'lake');
    const table = await relabelledTable(harness);
    const long = 'x'.repeat(250);
    for (const row of table.rows.slice(0, 3))
      await harness.admin('PATCH', `/tables/${table.id}/rows/${row}`, { cells: { [table.name]: long } });
    await syncLake(harness, table.id, lake);
    await harness.admin('PATCH', `/tables/${table.id}/fields/${table.name}`, { label: 'Title' });
    await harness.admin('PATCH', `/tables/${table.id}/rows/${table.rows[0]}`, { cells: { [table.score]: 99 } });
    await syncLake(harness, table.id, lake);
    const cut = (from: string): Promise<Array<{ t: string[] }>> =>
      sql<{ t: string[] }>(harness, `SELECT _truncated AS t FROM ${from} WHERE _truncated IS NOT NULL`);
    // every version the mirror holds, the one replaced and those never read again, names the column by its key now
    expect(await cut('(SELECT _truncated FROM relabelled UNION ALL SELECT _truncated FROM relabelled__history)')).toEqual(
      Array.from({ length: 4 }, () => ({ t: ['Title'] })),
    );
    expect(await cut(changes(lake, 'relabelled'))).toEqual(Array.from({ length: 4 }, () => ({ t: ['Name'] })));
    const check = await harness.tds(['lake', 'check', lake]);
    expect(check.code, check.stderr).toBe(0);
  });
});
