import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { appendRows, stagedSqlType } from '../../duckdb/append-rows.js';
import { openDatabase } from '../../duckdb/engine.js';
import { copyToParquetFile } from '../../duckdb/copy-parquet.js';
import { quoteIdent } from '../../duckdb/sql-text.js';
import { typedPlan, typedRowReader } from '../../records/typed-plan.js';
import type { TypedValue } from '../../records/typed-values.js';
import type { HeaderMode } from '../../records/shape-options.js';
import type { Field, Row } from '../../service/index.js';

/** Rows handed to DuckDB at once (a few data chunks). */
const BATCH_ROWS = 8192;

/**
 * The pushed rows as Parquet, with the typed columns of the mirror and of `tds rows --format parquet`
 * (the action columns' status and error included): staged in a temporary DuckDB file, then written
 * by DuckDB's COPY (copyToParquetFile).
 */
export async function writeParquetRows(
  path: string,
  header: HeaderMode,
  fields: readonly Field[],
  rows: AsyncIterable<Row>,
): Promise<{ rows: number; unfit: number }> {
  const columns = typedPlan(fields, { header });
  const read = typedRowReader(columns);
  const types = columns.map((column) => column.type);
  const dir = await mkdtemp(join(tmpdir(), 'tds-parquet-'));
  const db = await openDatabase(join(dir, 'rows.duckdb'), { readOnly: false, what: 'the staging file', memoryLimit: '128MB' });
  let count = 0;
  let unfit = 0;
  try {
    const definitions = columns.map((column) => `${quoteIdent(column.key)} ${stagedSqlType(column.type)}`);
    await db.connection.run(`CREATE TABLE pushed (${definitions.join(', ')})`);
    let batch: TypedValue[][] = [];
    for await (const row of rows) {
      batch.push(read(row, () => (unfit += 1)));
      count += 1;
      if (batch.length >= BATCH_ROWS) {
        await appendRows(db, { name: 'pushed' }, types, batch);
        batch = [];
      }
    }
    await appendRows(db, { name: 'pushed' }, types, batch);
    const select = columns.map((column) => {
      const key = quoteIdent(column.key);
      return column.type === 'JSON' || column.type === 'TIMESTAMPTZ' ? `CAST(${key} AS ${column.type}) AS ${key}` : key;
    });
    await copyToParquetFile((sql) => db.connection.run(sql), `SELECT ${select.join(', ')} FROM pushed`, path);
  } finally {
    db.close();
    await rm(dir, { recursive: true, force: true });
  }
  return { rows: count, unfit };
}
