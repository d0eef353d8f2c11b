import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { writeParquetRows } from '../../../src/push/wait/write-rows.js';
import type { Field, Row } from '../../../src/service/index.js';
import { columnTypes, META_COLUMN_TYPES, readParquet } from '../../export/parquet-file.js';
import { test as it } from '../../helpers/emulator-fixture.js';
import { useTestFolder } from '../../helpers/test-folder.js';

const folder = useTestFolder();

// --wait settled -o FILE.parquet: the pushed rows in the mirror's typed columns, written through the
// staging file and the COPY-out of an export (src/parquet/), which leave nothing beside FILE.

const FIELDS: Field[] = [
  { id: 'f_email', name: 'email', label: 'Email', type: 'email', options: null, isSystem: false },
  { id: 'f_size', name: 'size', label: 'Size', type: 'number', options: null, isSystem: false },
  { id: 'f_enrich', name: 'enrich', label: 'Enrich', type: 'action', options: null, isSystem: false },
];

function row(i: number, size: unknown): Row {
  return {
    id: `r${i}`,
    tableId: 't',
    createdAt: '2026-02-01T10:00:00.000Z',
    updatedAt: '2026-02-01T10:05:00.000Z',
    createdByUserId: null,
    cells: { f_email: { value: `p${i}@x.io` }, f_size: { value: size }, f_enrich: { value: { ok: i }, status: 'success' } },
  };
}

async function* rows(): AsyncGenerator<Row> {
  yield row(1, 10);
  yield row(2, 'many'); // does not fit DOUBLE: NULL, counted
  yield row(3, 30);
}

describe('writeParquetRows', () => {
  it('writes the rows in order with typed columns, counts the values that do not fit, and leaves only FILE', async () => {
    const dir = await folder.make('push-parquet');
    const path = join(dir, 'pushed.parquet');
    expect(await writeParquetRows(path, 'label', FIELDS, rows())).toEqual({ rows: 3, unfit: 1 });
    const file = await readParquet(path);
    expect(columnTypes(file)).toEqual([
      ...META_COLUMN_TYPES,
      'Email VARCHAR',
      'Size DOUBLE',
      'Enrich JSON',
      'Enrich.status VARCHAR',
      'Enrich.error VARCHAR',
      '_truncated VARCHAR[]',
    ]);
    expect(file.rows.map((each) => [each._id, each.Size, each.Enrich, each['Enrich.status']])).toEqual([
      ['r1', 10, { ok: 1 }, 'success'],
      ['r2', null, { ok: 2 }, 'success'],
      ['r3', 30, { ok: 3 }, 'success'],
    ]);
    expect(await readdir(dir)).toEqual(['pushed.parquet']);
  });
});
