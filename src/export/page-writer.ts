import { planRecord } from '../records/record-plan.js';
import { createRowShaper } from '../records/row-shaper.js';
import { TruncationTally } from '../records/truncation-tally.js';
import type { Row } from '../service/index.js';
import type { ByteOutput } from './export-output.js';
import type { ExportSource, ExportTarget } from './export-request.js';
import type { ExportState } from './export-state.js';
import { createPageEncoder } from '../output/page-encoder.js';
import type { DataFormat } from '../output/format.js';
import type { ShapeOptions } from '../records/shape-options.js';

/** Rows → the export's output, a whole page at a time, keeping the export state's counts. */
export interface PageWriter {
  /** The CSV header or `[`, once at the start of a fresh output. */
  start(state: ExportState): Promise<void>;
  /** A page's rows; its cut cells are counted once it is written, as a checkpoint taken then says. */
  page(state: ExportState, rows: readonly Row[]): Promise<void>;
  /** `]` for JSON; Parquet commits its last rows. */
  end(state: ExportState): Promise<void>;
  /** Writers that commit rows in groups (Parquet's staging file): a checkpoint may count only committed rows. */
  deferred?: DeferredRows;
}

/** Rows written but not yet committed, and the way to commit them. */
export interface DeferredRows {
  /**
   * Once a commit of every row written so far has begun, a promise that resolves when it ends: a
   * checkpoint of the state now may be saved then. Undefined while some rows wait for a later commit.
   */
  covering(): Promise<void> | undefined;
  /** Commits every row written so far, and waits for it. */
  settle(): Promise<void>;
}

/** What the bytes of a data format depend on. */
export type EncodedRequest = Pick<ExportSource, 'fields'> & Pick<ExportTarget, 'csv'> & { shape: ShapeOptions; format: DataFormat };

/** `statusFields`: the columns given status keys (fixed by the first page or the checkpoint). */
export function createPageWriter(request: EncodedRequest, statusFields: readonly string[], output: ByteOutput): PageWriter {
  const plan = planRecord(request.fields, request.shape, new Set(statusFields));
  const shape = createRowShaper(plan, request.shape.cells);
  const encoder = createPageEncoder({ format: request.format, keys: plan.keys, ...request.csv });
  const write = async (state: ExportState, chunk: Buffer): Promise<void> => {
    await output.write(chunk);
    state.bytes += chunk.length;
  };
  return {
    start: (state) => write(state, encoder.prelude()),
    async page(state, rows) {
      const tally = new TruncationTally();
      const records = rows.map((row) => shape(row, tally));
      await write(
        state,
        encoder.encode(records, state.rows, (key) => tally.note('spreadsheet', key)),
      );
      state.rows += records.length;
      state.tally.addAll(tally);
    },
    end: (state) => write(state, encoder.epilogue(state.rows)),
  };
}
