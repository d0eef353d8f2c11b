import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { openStagedOutput } from '../../src/parquet/staged-output.js';
import { stagingPath } from '../../src/parquet/staging-files.js';
import type { TypedColumn } from '../../src/records/typed-plan.js';
import { readParquet } from '../export/parquet-file.js';
import { test as it } from '../helpers/emulator-fixture.js';
import { useTestFolder } from '../helpers/test-folder.js';

const folder = useTestFolder();

const columns: TypedColumn[] = [
  { key: '_id', type: 'VARCHAR', role: 'id' },
  { key: 'n', type: 'DOUBLE', role: 'meta' },
];

describe('openStagedOutput', () => {
  // Regression: a Parquet export whose staging file could not be made (DuckDB refused its columns) left
  // FILE.tds-staging.duckdb behind.
  it('leaves no staging file when the staging table cannot be made', async () => {
    const dir = await folder.make('parquet-staging');
    const clashing: TypedColumn[] = [
      { key: '_id', type: 'VARCHAR', role: 'id' },
      { key: 'Email', type: 'VARCHAR', role: 'meta' },
      { key: 'email', type: 'VARCHAR', role: 'meta' }, // DuckDB's names ignore case: CREATE TABLE fails
    ];
    await expect(openStagedOutput(join(dir, 'out.parquet'), clashing)).rejects.toThrow(/email/i);
    expect(await readdir(dir)).toEqual([]);
  });

  // push --wait settled -o FILE.parquet has no checkpoint: a run killed while staging leaves its staging
  // file, and the next run starts afresh beside it.
  it('a new output replaces the staging file a killed run left', async () => {
    const dir = await folder.make('parquet-staging');
    const path = join(dir, 'out.parquet');
    const killed = await openStagedOutput(path, columns);
    await killed.add([['a', 1]]);
    await killed.keep(); // what a kill leaves: the staging file and its WAL
    expect((await readdir(dir)).sort()).toEqual(['out.parquet.tds-staging.duckdb', 'out.parquet.tds-staging.duckdb.wal']);

    const output = await openStagedOutput(path, columns);
    await output.add([['b', 2]]);
    await output.commit();
    expect((await readParquet(path)).rows).toEqual([{ _id: 'b', n: 2 }]);
    expect(await readdir(dir)).toEqual(['out.parquet']);
  });

  it('a staging file that is not DuckDB’s, left where a new one goes, is replaced too', async () => {
    const dir = await folder.make('parquet-staging');
    const path = join(dir, 'out.parquet');
    await writeFile(stagingPath(path), 'not a database');
    const output = await openStagedOutput(path, columns);
    await output.add([['a', 1]]);
    await output.commit();
    expect(await readdir(dir)).toEqual(['out.parquet']);
  });
});
