import type { Context } from '../core/index.js';
import type { DataFormat, ExportFormat } from '../output/index.js';
import { createPageEncoder } from '../output/page-encoder.js';
import type { StagedOutput } from '../parquet/index.js';
import { planRecord, createRowShaper, TruncationTally, TRUNCATED_KEY, typedRowReader } from '../records/index.js';
import type { ExportState } from './checkpoint.js';
import type { ExportRequest } from './export-request.js';
import type { ByteOutput, PageWriter, PreparedOutput } from './output.js';
import { parquetColumns } from './parquet-columns.js';
import type { TableView } from './table-writer.js';

/** What the writer of an export is chosen by, and what the table writer needs besides. */
export interface WriterChoice {
  /** The format, and what its records and bytes are made of (the table, for `--format table`'s view). */
  request: Omit<EncodedRequest, 'format'> & Omit<TableView, 'unfiltered'> & { format: ExportFormat };
  unfiltered: boolean;
  /** Bytes (stdout, FILE.partial), or Parquet's staged rows. */
  output: PreparedOutput['output'];
  /** Called just before a table is written (the progress line goes first). */
  beforeRender(): void;
  /** Rows exist beyond those read (-n, or the screenful, stopped the export). */
  moreRows(): boolean;
}

/** Makes the writer of the export's format for the status columns the first page (or the checkpoint) fixes. */
export type WriterFactory = (statusFields: readonly string[]) => PageWriter;

/**
 * The writer of each format: Parquet's for a staged output, the table writer for `--format table`,
 * the page writer of bytes for every other format.
 */
export async function writerFactory(ctx: Context, choice: WriterChoice): Promise<WriterFactory> {
  const { request, output } = choice;
  const { format, fields, shape } = request;
  // The table writer (cli-table3, emoji) is loaded only for --format table: the data formats start faster without it.
  const tableWriter = format === 'table' ? (await import('./table-writer.js')).createTableWriter : undefined;
  return (statusFields) => {
    if (output.kind === 'staged') return createParquetWriter({ fields, shape }, output);
    // prepareOutput stages every parquet export, so a byte output never meets it
    if (format === 'parquet') throw new Error('a parquet export needs a staged output');
    if (format !== 'table') return createPageWriter({ fields, shape, csv: request.csv, format }, statusFields, output);
    const view: TableView = {
      table: request.table,
      fields,
      shape,
      unfiltered: choice.unfiltered,
      ...(request.screenful ? { screenful: true } : {}),
    };
    return tableWriter!(ctx, view, { statusFields, output, beforeRender: choice.beforeRender, moreRows: choice.moreRows });
  };
}

/** What the bytes of a data format depend on. */
export type EncodedRequest = Pick<ExportRequest, 'fields' | 'csv' | 'shape'> & { format: DataFormat };

/** `statusFields`: the columns given status keys (fixed by the first page or the checkpoint). */
export function createPageWriter(request: EncodedRequest, statusFields: readonly string[], output: ByteOutput): PageWriter {
  const plan = planRecord(request.fields, request.shape, new Set(statusFields));
  const shape = createRowShaper(plan, request.shape.cells);
  const { spreadsheet, ...csv } = request.csv;
  const members = new Set(plan.columns.filter((column) => column.field.type === 'member').map((column) => column.key));
  const encoder = createPageEncoder({
    format: request.format,
    keys: plan.keys,
    ...csv,
    ...(spreadsheet ? { spreadsheet: { members } } : {}),
  });
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
    end: () => output.commitRows(),
    deferred: output,
  };
}
