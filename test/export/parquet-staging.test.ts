import { mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStagedOutput } from '../../src/export/parquet-output.js';
import type { TypedColumn } from '../../src/records/typed-plan.js';

// Regression: a Parquet export whose staging file could not be made (DuckDB refused its columns) left
// FILE.tds-staging.duckdb behind.

describe('openStagedOutput', () => {
  it('leaves no staging file when the staging table cannot be made', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tds-parquet-staging-'));
    const columns: TypedColumn[] = [
      { key: '_id', type: 'VARCHAR', role: 'id' },
      { key: 'Email', type: 'VARCHAR', role: 'meta' },
      { key: 'email', type: 'VARCHAR', role: 'meta' }, // DuckDB's names ignore case: CREATE TABLE fails
    ];
    await expect(openStagedOutput(join(dir, 'out.parquet'), columns)).rejects.toThrow(/email/i);
    expect(await readdir(dir)).toEqual([]);
  });
});
