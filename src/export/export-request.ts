import type { RateWindow } from '../http/service-pace.js';
import type { ExportFormat } from '../output/format.js';
import type { ShapeOptions } from '../records/shape-options.js';
import type { Field, FilterGroup, RowsPage, Table } from '../service/index.js';

export type Endpoint = 'rows' | 'query';
export type OnTruncated = 'warn' | 'error';

/** CSV/TSV writing options (createRecordWriter's). */
export interface CsvOptions {
  bom: boolean;
  crlf: boolean;
  join?: string;
  safeFormulas: boolean;
  /** Cells longer than this are cut (--excel: the spreadsheet cell limit). */
  maxCellChars?: number;
}

/** What to read: the table and its query, how far (-n) and in what pages, and whether to follow it afterwards. */
export interface ExportSource {
  table: Table;
  fields: Field[];
  endpoint: Endpoint;
  /** -q; '' for none. */
  search: string;
  filters?: FilterGroup;
  /** -n: rows in all. */
  limit?: number;
  pageSize: number;
  /** `tds rows --follow`: after the export, poll the newest page this often and write the rows created since. */
  follow?: { everyMs: number };
}

/** How to write: the format with its options, where to, and what to do about cut cells. */
export interface ExportTarget {
  /**
   * `table`: stdout only, the records held until the end and printed as a table (createTableWriter).
   * `parquet`: -o FILE only, typed columns (parquetColumns) staged in DuckDB and copied out at the end.
   */
  format: ExportFormat;
  csv: CsvOptions;
  /** -o FILE; stdout when undefined. */
  output?: string;
  onTruncated: OnTruncated;
  /** The limit is a screenful chosen for `--format table` on a terminal, not the user's -n. */
  screenful?: boolean;
}

/** What becomes of an interrupted export to -o FILE (readExportFlags refuses both flags without it). */
export interface ExportControl {
  resume: boolean;
  restart: boolean;
}

/** How fast rows can be read: the row-read limit as the client paces it (its rate scale counted), for the ETA and --follow. */
export interface ExportPacing {
  rowWindow: RateWindow;
}

/**
 * Everything that decides one export of `tds rows` or `tds query`, as the command gathers it from the
 * flags, the schema and the client; runExport gives each stage its part: what to read, how to shape
 * the records, how to write them, what to do with an earlier run, and the pace of reads.
 */
export interface ExportRequest extends ExportSource, ExportTarget, ExportControl, ExportPacing {
  shape: ShapeOptions;
}

/** One page of the export's endpoint: `limit` rows at most, after `cursor`; `onBody` as in paginate. */
export type FetchPage = (cursor: string | undefined, limit: number, onBody?: (body: string) => void) => Promise<RowsPage>;

/** What an export did, for --verbose. */
export interface ExportSummary {
  rows: number;
  /** Rows written while following (--follow). */
  followed?: number;
  duplicates: number;
  pages: number;
  truncatedCells: number;
  elapsedMs: number;
}
