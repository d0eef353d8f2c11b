// src/output/: what tds prints and writes. Its surface: the formats and how one is chosen (format.ts),
// `-o FILE` claimed, written aside and renamed (atomic-file.ts), a refused write (write-error.ts) and
// the progress line on stderr (live-line.ts); then, loaded when first called (the command definitions
// read the formats here at start-up, and `tds rows` or `tds sql --format csv` draw no table): tables for
// people with the pager and the listings' writer (table.ts: writeWhole, writeListing, writePaged, or the
// module from tableOutput()), records as a table (record-table.ts, recordTableOutput()) and records → a
// data format's bytes (page-encoder.ts, pageEncoderOutput(): createPageEncoder, createRecordWriter).

import type { Context } from '../core/index.js';
import type { FileOpener } from './atomic-file.js';
import type { ListingLayout } from './table.js';

export { checkOutputTarget, claimOutput, createAtomicFile, type AtomicFile, type FileOpener } from './atomic-file.js';
export * from './options.js';
export { startLiveLine, type LiveLine } from './live-line.js';
export type { RecordColumn } from './record-table.js';
export type { ListingLayout, TableColumn } from './table.js';
export { asWriteError, OutputWriteError } from './write-error.js';

/** Tables for people (cli-table3, node-emoji and the pager): renderTable, tableFit, emojiFor, cellDisplay, … */
export const tableOutput = (): Promise<typeof import('./table.js')> => import('./table.js');
/** Records as a table for people: renderRecordTable, firstRows, resultCellText. */
export const recordTableOutput = (): Promise<typeof import('./record-table.js')> => import('./record-table.js');
/** Records → CSV, NDJSON, JSON and the spreadsheet formats (csv-stringify): createPageEncoder, createRecordWriter. */
export const pageEncoderOutput = (): Promise<typeof import('./page-encoder.js')> => import('./page-encoder.js');

/** Output made whole in memory, to stdout or to a file renamed when complete: see table.ts. */
export async function writeWhole(
  ctx: Context,
  text: (toFile: boolean) => Buffer,
  path: string | undefined,
  open?: FileOpener,
): Promise<void> {
  return (await tableOutput()).writeWhole(ctx, text, path, open);
}

/** A listing (workspaces, tables, a schema, webhooks) in any format: see table.ts. */
export async function writeListing<T extends object>(ctx: Context, items: T[], spec: ListingLayout<T>): Promise<void> {
  return (await tableOutput()).writeListing(ctx, items, spec);
}

/** Text through the pager when stdout is a terminal: see table.ts. */
export async function writePaged(ctx: Pick<Context, 'io'>, text: string): Promise<void> {
  return (await tableOutput()).writePaged(ctx, text);
}
