import { TruncationTally } from '../records/truncation-tally.js';
import { TRUNCATED_KEY, typedRowReader } from '../records/typed-plan.js';
import type { ExportRequest } from './export-request.js';
import type { ExportState } from './export-state.js';
import type { PageWriter } from './page-writer.js';
import { parquetColumns } from './parquet-columns.js';
import type { StagedOutput } from '../parquet/staged-output.js';

/**
 * `--format parquet`: each page's rows as typed values (the mirror's mapping), staged a data chunk at a
 * time. A value that does not fit its column's type is NULL and counted; cells the service cut are
 * counted as for every format (and named in each row's `_truncated`).
 */
export function createParquetWriter(request: Pick<ExportRequest, 'fields' | 'shape'>, output: StagedOutput): PageWriter {
  const columns = parquetColumns(request.fields, request.shape);
  const read = typedRowReader(columns);
  const cutAt = columns.findIndex((column) => column.key === TRUNCATED_KEY);
  return {
    start: async () => undefined,
    async page(state: ExportState, rows) {
      const tally = new TruncationTally();
      const unfit = new Map<string, number>();
      const noteUnfit = (key: string): void => void unfit.set(key, (unfit.get(key) ?? 0) + 1);
      const typed = rows.map((row) => {
        const values = read(row, noteUnfit);
        const cut = values[cutAt] as readonly string[] | null;
        if (cut) for (const key of cut) tally.note('service', key);
        return values;
      });
      await output.add(typed);
      state.rows += typed.length;
      state.bytes = output.rows;
      state.tally.addAll(tally);
      for (const [key, count] of unfit) state.unfit.set(key, (state.unfit.get(key) ?? 0) + count);
    },
    end: () => output.settle(),
    deferred: output,
  };
}
