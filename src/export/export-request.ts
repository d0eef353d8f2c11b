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

/** Everything that decides one export of `tds rows` or `tds query`, read from the flags and the schema. */
export interface ExportRequest {
  table: Table;
  fields: Field[];
  endpoint: Endpoint;
  /** -q; '' for none. */
  search: string;
  filters?: FilterGroup;
  shape: ShapeOptions;
  /**
   * `table`: stdout only, the records held until the end and printed as a table (createTableWriter).
   * `parquet`: -o FILE only, typed columns (parquetColumns) staged in DuckDB and copied out at the end.
   */
  format: ExportFormat;
  csv: CsvOptions;
  /** -o FILE; stdout when undefined. */
  output?: string;
  /** -n: rows in all. */
  limit?: number;
  /** The limit is a screenful chosen for `--format table` on a terminal, not the user's -n. */
  screenful?: boolean;
  /** `tds rows --follow`: after the export, poll the newest page this often and write the rows created since. */
  follow?: { everyMs: number };
  pageSize: number;
  /** With `output` only (readExportFlags refuses them without it). */
  resume: boolean;
  restart: boolean;
  onTruncated: OnTruncated;
  /** The row-read limit as the client paces it (divided by TDS_RATE_SCALE), for the ETA. */
  rowWindow: { requests: number; perMs: number };
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
