import { planRecord } from '../records/record-plan.js';
import { createRowShaper } from '../records/row-shaper.js';
import { TruncationTally } from '../records/truncation-tally.js';
import type { Row } from '../spec/index.js';
import type { ExportOutput } from './export-output.js';
import type { ExportRequest } from './export-request.js';
import type { ExportState } from './export-state.js';
import { createPageEncoder } from '../output/page-encoder.js';
import type { DataFormat } from '../output/format.js';

/** Rows → records → bytes of the output, a whole page at a time, keeping the export state's counts. */
export interface PageWriter {
  /** The CSV header or `[`, once at the start of a fresh output. */
  start(output: ExportOutput, state: ExportState): Promise<void>;
  /** A page's rows; its cut cells are counted once it is written, as a checkpoint taken then says. */
  page(output: ExportOutput, state: ExportState, rows: readonly Row[]): Promise<void>;
  /** `]` for JSON. */
  end(output: ExportOutput, state: ExportState): Promise<void>;
}

/** What the bytes of a data format depend on. */
export type EncodedRequest = Pick<ExportRequest, 'fields' | 'shape' | 'csv'> & { format: DataFormat };

/** `statusFields`: the columns given status keys (fixed by the first page or the checkpoint). */
export function createPageWriter(request: EncodedRequest, statusFields: readonly string[]): PageWriter {
  const plan = planRecord(request.fields, request.shape, new Set(statusFields));
  const shape = createRowShaper(plan, request.shape.cells);
  const encoder = createPageEncoder({ format: request.format, keys: plan.keys, ...request.csv });
  const write = async (output: ExportOutput, state: ExportState, chunk: Buffer): Promise<void> => {
    await output.write(chunk);
    state.bytes += chunk.length;
  };
  return {
    start: (output, state) => write(output, state, encoder.prelude()),
    async page(output, state, rows) {
      const tally = new TruncationTally();
      const records = rows.map((row) => shape(row, tally));
      await write(
        output,
        state,
        encoder.encode(records, state.rows, (key) => tally.note('spreadsheet', key)),
      );
      state.rows += records.length;
      state.tally.addAll(tally);
    },
    end: (output, state) => write(output, state, encoder.epilogue(state.rows)),
  };
}
