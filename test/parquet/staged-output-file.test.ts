import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { writeParquetFile } from '../../src/parquet/staged-output.js';
import type { TypedColumn } from '../../src/records/typed-plan.js';
import type { TypedValue } from '../../src/records/typed-values.js';
import { readParquet } from '../export/parquet-file.js';
import { test as it } from '../helpers/emulator-fixture.js';
import { useTestFolder } from '../helpers/test-folder.js';

const folder = useTestFolder();

// Typed rows in, a Parquet file out, through the staging file and the COPY-out of an export (push's
// --wait settled -o FILE.parquet writes its rows this way).

const columns: TypedColumn[] = [
  { key: '_id', type: 'VARCHAR', role: 'id' },
  { key: '_createdAt', type: 'TIMESTAMPTZ', role: 'meta' },
  { key: 'Amount', type: 'DOUBLE', role: 'meta' },
  { key: 'Active', type: 'BOOLEAN', role: 'meta' },
  { key: 'Tags', type: 'VARCHAR[]', role: 'meta' },
  { key: 'Address', type: 'JSON', role: 'meta' },
];

const row = (i: number): TypedValue[] => [
  `row_${i}`,
  new Date(Date.UTC(2024, 0, 1, 0, 0, i)).toISOString(),
  i / 2,
  i % 2 === 0,
  ['a', `t${i}`],
  `{"i":${i}}`,
];

async function* batches(...sizes: number[]): AsyncGenerator<TypedValue[][]> {
  let next = 0;
  for (const size of sizes) {
    yield Array.from({ length: size }, () => row(next++));
  }
}

describe('writeParquetFile', () => {
  it('writes every row in order with its column’s type, and leaves nothing but FILE', async () => {
    const dir = await folder.make('write-parquet');
    const path = join(dir, 'rows.parquet');
    await writeParquetFile(path, columns, batches(2, 0, 3));
    const file = await readParquet(path);
    expect(file.columns.map((column) => column.type)).toEqual([
      'VARCHAR',
      'TIMESTAMP WITH TIME ZONE',
      'DOUBLE',
      'BOOLEAN',
      'VARCHAR[]',
      'JSON',
    ]);
    expect(file.rows.map((each) => each._id)).toEqual(['row_0', 'row_1', 'row_2', 'row_3', 'row_4']);
    expect(file.rows[3]).toEqual({
      _id: 'row_3',
      _createdAt: '2024-01-01T00:00:03.000Z',
      Amount: 1.5,
      Active: false,
      Tags: ['a', 't3'],
      Address: { i: 3 },
    });
    expect(await readdir(dir)).toEqual(['rows.parquet']);
  });

  it('keeps every value as the column’s type has it, whatever the column’s name: instants, big numbers, members, nulls', async () => {
    const dir = await folder.make('write-parquet');
    const path = join(dir, 'rows.parquet');
    // the columns above, each under a name that SQL, paths or a length limit could trip on
    const hostileKeys = ['_id', 'Signed "Up"; DROP', 'a.b/../🚀', "it's", 'x'.repeat(300), 'Owner (member)'];
    const hostile: TypedColumn[] = columns.map((column, i) => ({ ...column, key: hostileKeys[i]! }));
    const member = '{"id":"usr_1","name":"Ada 🚀","email":"ada@example.com"}';
    async function* rows(): AsyncGenerator<TypedValue[][]> {
      yield [['r1', '1969-12-31T23:59:59.999Z', 2 ** 53 + 2, true, ['a', ''], member]];
      // not the service's own form: DuckDB casts it, as it did every instant before
      yield [['r2', '2026-11-27 12:14:37.5+02', -0, false, [], null]];
      yield [['r3', null, null, null, null, '[1,{"a":null}]']];
    }
    await writeParquetFile(path, hostile, rows());
    const file = await readParquet(path);
    expect(file.columns.map((column) => column.name)).toEqual(hostileKeys);
    expect(file.rows.map((each) => Object.values(each))).toEqual([
      ['r1', '1969-12-31T23:59:59.999Z', 9007199254740994, true, ['a', ''], JSON.parse(member)],
      ['r2', '2026-11-27T10:14:37.500Z', 0, false, [], null],
      ['r3', null, null, null, null, [1, { a: null }]],
    ]);
    expect(Object.is(file.rows[1]![hostile[2]!.key], -0)).toBe(false);
  });

  it('rows that fail to come leave FILE as it was, and neither FILE.partial nor the staging file', async () => {
    const dir = await folder.make('write-parquet');
    const path = join(dir, 'rows.parquet');
    await writeFile(path, 'the earlier file');
    async function* failing(): AsyncGenerator<TypedValue[][]> {
      yield* batches(2);
      throw new Error('the row store could not be read');
    }
    await expect(writeParquetFile(path, columns, failing())).rejects.toThrow('the row store could not be read');
    expect(await readdir(dir)).toEqual(['rows.parquet']);
  });
});
