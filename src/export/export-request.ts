import type { RateWindow } from '../http/index.js';
import type { ExportFormat } from '../output/index.js';
import type { ShapeOptions } from '../records/index.js';
import type { Field, FilterGroup, Row, RowsPage, Table } from '../service/index.js';

/** The longest text a spreadsheet cell holds (Excel, LibreOffice): --excel cuts longer cells. */
export const SPREADSHEET_CELL_MAX_CHARS = 32_767;

/** Seconds between two polls of --follow when --every is not given. */
export const FOLLOW_EVERY_DEFAULT_S = 10;

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
  /** --delimiter, or `;` for --excel eu: the CSV field separator instead of `,`. */
  delimiter?: string;
  /** --excel eu: numbers with a decimal comma. */
  decimalComma?: boolean;
  /** --excel: lists of plain values as `a, b` and members by name, as a person reads them in a spreadsheet. */
  spreadsheet?: boolean;
}

/**
 * Everything that decides one export of `tds rows` or `tds query`, as the command gathers it from the
 * flags, the schema and the client. Each stage reads the fields it needs.
 */
export interface ExportRequest {
  // what to read: the table and its query, how far (-n) and in what pages
  table: Table;
  fields: Field[];
  endpoint: Endpoint;
  /** -q; '' for none. */
  search: string;
  filters?: FilterGroup;
  /** --where's run-state tests (`Enrich.status = success`), made here on each row the service returns; `text` as written. */
  local?: { test(row: Row): boolean; text: string };
  /** -n: rows in all. */
  limit?: number;
  pageSize: number;
  /** `tds rows --follow`: after the export, poll the newest page this often and write the rows created since. */
  follow?: { everyMs: number };

  // how to shape the records and write them
  shape: ShapeOptions;
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

  // what becomes of an interrupted export to -o FILE (readExportFlags refuses both flags without it)
  resume: boolean;
  restart: boolean;

  /** How fast rows can be read: the row-read limit as the client's limiter spaces it (its rate scale counted), for the ETA and --follow. */
  rowWindow: RateWindow;
}

/** One page of the export's endpoint: `limit` rows at most, after `cursor`; `onBody` as in paginate. */
export type FetchPage = (cursor: string | undefined, limit: number, onBody?: (body: string) => void) => Promise<RowsPage>;

/** What an export did, for --verbose. */
export interface ExportSummary {
  rows: number;
  /** Rows the service returned, when run-state tests were made on them (`local`). */
  tested?: number;
  /** Rows written while following (--follow). */
  followed?: number;
  duplicates: number;
  pages: number;
  truncatedCells: number;
  elapsedMs: number;
}

/** The `limit` of the next page request: the page size, or fewer when --limit needs fewer rows. */
export function pageLimit(pageSize: number, limit: number | undefined, written: number): number {
  return limit === undefined ? pageSize : Math.max(1, Math.min(pageSize, limit - written));
}
