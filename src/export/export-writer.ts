import type { Context } from '../core/context.js';
import type { ExportFormat } from '../output/format.js';
import type { EncodedRequest, PageWriter } from './page-writer.js';
import { createPageWriter } from './page-writer.js';
import { createParquetWriter } from './parquet-writer.js';
import type { PreparedOutput } from './prepare-output.js';
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
