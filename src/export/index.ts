// src/export/: `tds rows` and `tds query` exports. Its surface: runExport (run-export.ts) with the one
// ExportRequest every part reads (export-request.ts), and the export flags read into it (export-flags.ts:
// readExportFlags, parseColumnList). Inside: page-loop.ts reads, writers.ts and table-writer.ts write,
// output.ts prepares, commits and stops the output, checkpoint.ts resumes. Light: the command definitions
// read export-request.ts's defaults here at start-up; the flags (csv-parse) and the export itself are
// loaded by the first call of the functions below.

import type { Context } from '../core/index.js';
import type { ExportCommandLine, ExportFlags, ExportFlagValues } from './export-flags.js';
import type { ExportRequest, ExportSummary, FetchPage } from './export-request.js';
import type { ExportDeps } from './run-export.js';
import type { Format } from '../output/index.js';

export type { ExportFlags, ExportFlagValues } from './export-flags.js';
export {
  FOLLOW_EVERY_DEFAULT_S,
  pageLimit,
  SPREADSHEET_CELL_MAX_CHARS,
  type Endpoint,
  type ExportRequest,
  type ExportSummary,
  type FetchPage,
} from './export-request.js';

/** An export, from its request to its summary: see run-export.ts. */
export async function runExport(ctx: Context, fetchPage: FetchPage, request: ExportRequest, deps?: ExportDeps): Promise<ExportSummary> {
  return (await import('./run-export.js')).runExport(ctx, fetchPage, request, deps);
}

/** The export flags of a command line, checked: see export-flags.ts. */
export async function readExportFlags(
  values: ExportFlagValues,
  defaultFormat: Format | undefined,
  line?: ExportCommandLine,
): Promise<ExportFlags> {
  return (await import('./export-flags.js')).readExportFlags(values, defaultFormat, line);
}

/** `--columns a,b,"c,d"` → its names: see export-flags.ts. */
export async function parseColumnList(text: string): Promise<string[]> {
  return (await import('./export-flags.js')).parseColumnList(text);
}
