import type { TypedColumn } from '../records/typed-plan.js';
import type { TypedValue } from '../records/typed-values.js';
import { openStagedOutput } from './staged-output.js';

/**
 * Typed rows (in the columns' order, a batch at a time) as the Parquet file `path`, the way an export
 * writes one: staged beside it, then copied out. Nothing to resume: a failure leaves neither FILE.partial
 * nor the staging file (FILE, if it was there, stays as it was).
 */
export async function writeParquetFile(
  path: string,
  columns: readonly TypedColumn[],
  batches: AsyncIterable<TypedValue[][]>,
): Promise<void> {
  const output = await openStagedOutput(path, columns);
  try {
    for await (const rows of batches) await output.add(rows);
    await output.commit();
  } catch (error) {
    await output.discard().catch(() => undefined);
    throw error;
  }
}
