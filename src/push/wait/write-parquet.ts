import { writeParquetFile } from '../../parquet/write-parquet-file.js';
import { typedPlan, typedRowReader } from '../../records/typed-plan.js';
import type { TypedValue } from '../../records/typed-values.js';
import type { HeaderMode } from '../../records/shape-options.js';
import type { Field, Row } from '../../service/index.js';

/** Rows typed before they are handed on together (a few data chunks). */
const BATCH_ROWS = 8192;

/**
 * The pushed rows as Parquet, with the typed columns of the mirror and of `tds rows --format parquet`
 * (the action columns' status and error included), written as an export writes one (writeParquetFile).
 */
export async function writeParquetRows(
  path: string,
  header: HeaderMode,
  fields: readonly Field[],
  rows: AsyncIterable<Row>,
): Promise<{ rows: number; unfit: number }> {
  const columns = typedPlan(fields, { header });
  const read = typedRowReader(columns);
  let count = 0;
  let unfit = 0;
  async function* batches(): AsyncGenerator<TypedValue[][]> {
    let batch: TypedValue[][] = [];
    for await (const row of rows) {
      batch.push(read(row, () => (unfit += 1)));
      count += 1;
      if (batch.length >= BATCH_ROWS) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length > 0) yield batch;
  }
  await writeParquetFile(path, columns, batches());
  return { rows: count, unfit };
}
