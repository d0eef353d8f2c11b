import { parse as parseCsv } from 'csv-parse/sync';
import { UsageError } from '../core/index.js';
import { chooseExportFormat, type ExportFormat, type Format } from '../output/index.js';
import type { CellsMode, HeaderMode, ShapeOptions } from '../records/index.js';
import { SEARCH_MAX_CHARS } from '../service/index.js';
import { FOLLOW_EVERY_DEFAULT_S, SPREADSHEET_CELL_MAX_CHARS, type CsvOptions, type OnTruncated } from './export-request.js';

/** The flags of `tds rows` and `tds query` as commander gives them. */
export interface ExportFlagValues {
  format?: ExportFormat;
  output?: string;
  search?: string;
  limit?: number;
  pageSize: number;
  header: HeaderMode;
  columns?: string;
  meta: boolean;
  system: boolean;
  cells: CellsMode;
  statusColumns?: boolean;
  join?: string;
  bom?: boolean;
  /** `--excel` (true) or `--excel eu|us` */
  excel?: boolean | string;
  delimiter?: string;
  safeFormulas?: boolean;
  onTruncated: OnTruncated;
  resume?: boolean;
  restart?: boolean;
  /** `tds rows` only. */
  follow?: boolean;
  /** --every, in seconds. */
  every?: number;
}

/** The flags checked and turned into the parts of an export request (no request is made here). */
export interface ExportFlags {
  format: ExportFormat;
  output?: string;
  search: string;
  limit?: number;
  pageSize: number;
  shape: ShapeOptions;
  csv: CsvOptions;
  onTruncated: OnTruncated;
  resume: boolean;
  restart: boolean;
  follow?: { everyMs: number };
}

/** The command and table as the user gave them, for hints that show a command to run. */
export interface ExportCommandLine {
  command: 'rows' | 'query';
  table: string;
}

/** Checks the flags on their own, before any request: every problem here exits 2. */
export function readExportFlags(values: ExportFlagValues, defaultFormat: Format | undefined, line?: ExportCommandLine): ExportFlags {
  const output = values.output === '-' ? undefined : values.output;
  const fallback = defaultFormat && defaultFormat !== 'table' ? defaultFormat : 'csv';
  const format = chooseExportFormat({ ...(values.format ? { format: values.format } : {}), ...(output ? { output } : {}), fallback });
  if (format === 'table' && output) {
    throw new UsageError('--format table is for the terminal (or a pipe), not for -o FILE', {
      hint: 'write the file as csv, tsv, ndjson, json or parquet (by its extension or --format)',
    });
  }
  checkFollow(values, format, output);
  if (format === 'parquet') checkParquet(values, output, line);
  const delimited = format === 'csv' || format === 'tsv';
  for (const flag of ['join', 'bom', 'excel', 'safeFormulas'] as const) {
    if (values[flag] !== undefined && !delimited) {
      throw new UsageError(`--${kebab(flag)} applies to csv and tsv output, not ${format}`);
    }
  }
  const { delimiter, decimalComma } = spreadsheetLocale(values, format);
  const search = values.search ?? '';
  if (search.length > SEARCH_MAX_CHARS) {
    throw new UsageError(`the search text is ${search.length} characters long; the service accepts at most ${SEARCH_MAX_CHARS}`);
  }
  if (values.resume && values.restart) throw new UsageError('--resume and --restart cannot be used together');
  if ((values.resume || values.restart) && !output) {
    throw new UsageError(`--${values.resume ? 'resume' : 'restart'} needs -o FILE: only a file export can be continued`);
  }
  const excel = values.excel !== undefined && values.excel !== false;
  return {
    format,
    ...(output ? { output } : {}),
    search,
    ...(values.limit !== undefined ? { limit: values.limit } : {}),
    pageSize: values.pageSize,
    shape: {
      header: values.header,
      meta: values.meta,
      system: values.system,
      ...(values.columns !== undefined ? { columns: parseColumnList(values.columns) } : {}),
      cells: values.cells,
      statusColumns: Boolean(values.statusColumns),
    },
    csv: {
      bom: excel || Boolean(values.bom),
      crlf: excel,
      ...(values.join !== undefined ? { join: values.join } : {}),
      safeFormulas: excel || Boolean(values.safeFormulas),
      ...(excel ? { maxCellChars: SPREADSHEET_CELL_MAX_CHARS, spreadsheet: true } : {}),
      ...(delimiter !== undefined ? { delimiter } : {}),
      ...(decimalComma ? { decimalComma } : {}),
    },
    onTruncated: values.onTruncated,
    resume: Boolean(values.resume),
    restart: Boolean(values.restart),
    ...(values.follow ? { follow: { everyMs: (values.every ?? FOLLOW_EVERY_DEFAULT_S) * 1000 } } : {}),
  };
}

/** `--excel eu`: what a spreadsheet of a decimal-comma locale (most of Europe) opens as columns and numbers. */
export const EXCEL_LOCALES = ['us', 'eu'] as const;

/** --delimiter, and what --excel's locale implies: `eu` is `;` between fields and a decimal comma. */
function spreadsheetLocale(values: ExportFlagValues, format: ExportFormat): { delimiter?: string; decimalComma?: boolean } {
  const locale = typeof values.excel === 'string' ? values.excel : undefined;
  if (locale !== undefined && !(EXCEL_LOCALES as readonly string[]).includes(locale)) {
    throw new UsageError(`--excel takes ${EXCEL_LOCALES.join(' or ')}, not "${locale}"`, {
      hint: 'eu: `;` between fields and a decimal comma, as Excel opens CSV in most of Europe; write --excel last, after the table',
    });
  }
  if (values.delimiter !== undefined) {
    if (format !== 'csv') throw new UsageError(`--delimiter applies to csv output, not ${format}`);
    if ([...values.delimiter].length !== 1 || /["\r\n]/.test(values.delimiter)) {
      throw new UsageError(`--delimiter takes one character other than a quote or a line end, not ${JSON.stringify(values.delimiter)}`, {
        hint: "e.g. --delimiter ';' (for tabs: --format tsv)",
      });
    }
  }
  const eu = locale === 'eu';
  const delimiter = values.delimiter ?? (eu && format === 'csv' ? ';' : undefined);
  return { ...(delimiter !== undefined ? { delimiter } : {}), ...(eu ? { decimalComma: true } : {}) };
}

const CANNOT_GROW: Partial<Record<ExportFormat, string>> = {
  json: 'a JSON array',
  table: 'a table',
  parquet: 'a Parquet file (written whole at the end)',
};

/** --follow streams rows to stdout as they appear: only formats that can grow, no file, no search. */
function checkFollow(values: ExportFlagValues, format: ExportFormat, output: string | undefined): void {
  if (values.every !== undefined && !values.follow) throw new UsageError('--every needs --follow');
  if (!values.follow) return;
  const whole = CANNOT_GROW[format];
  if (whole) {
    throw new UsageError(`--follow writes rows as they appear, which ${whole} cannot do`, {
      hint: 'use --format ndjson (one object a line), csv or tsv',
    });
  }
  if (output) {
    throw new UsageError('--follow writes to stdout: an -o FILE export is renamed into place when complete, and a follow never completes', {
      hint: 'redirect stdout instead, e.g. tds rows TABLE --follow --format ndjson >> rows.ndjson',
    });
  }
  if (values.search) {
    throw new UsageError(
      '--follow cannot be used with -q: the service lists rows newest first (which --follow reads) only without a search',
      {
        hint: 'filter the stream instead, e.g. --format ndjson | jq or | grep',
      },
    );
  }
}

/**
 * Parquet is binary, so only to a file; its columns are typed values, so not whole Cell objects. The
 * CSV-only flags (--join, --bom, --excel, --safe-formulas) are refused for it as for every non-CSV format.
 */
function checkParquet(values: ExportFlagValues, output: string | undefined, line: ExportCommandLine | undefined): void {
  if (!output) {
    const example = line
      ? `tds ${line.command} ${shellWord(line.table)} -o ${fileStem(line.table)}.parquet`
      : 'tds rows TABLE -o rows.parquet';
    throw new UsageError('parquet needs -o FILE: it is a binary format, never written to a terminal or a pipe', {
      hint: `e.g. ${example}`,
    });
  }
  if (values.cells === 'raw') {
    throw new UsageError('--cells raw cannot be written as parquet: its columns hold typed values, not whole Cell objects', {
      hint: 'action columns have <key>.status and <key>.error columns in parquet; for whole cells use --format ndjson',
    });
  }
}

/** A table reference as one shell word: quoted when it holds anything but plain characters. */
function shellWord(text: string): string {
  return /^[\w.,:@%+=/-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/** `🚀 Leads` → `leads`, `Edge Cases` → `edge-cases`: a file name to suggest. */
function fileStem(table: string): string {
  const stem = table
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '');
  return stem || 'rows';
}

/** `A, B,"C, with comma"` → the references, read as one CSV record. */
export function parseColumnList(text: string): string[] {
  let records: string[][];
  try {
    records = parseCsv(text, { trim: true, relax_quotes: false }) as string[][];
  } catch (error) {
    throw new UsageError(`--columns: cannot read the list (${(error as Error).message})`, {
      hint: 'separate columns with commas; put a label that holds a comma in double quotes',
    });
  }
  const refs = (records[0] ?? []).filter((ref) => ref !== '');
  if (records.length > 1 || refs.length === 0) {
    throw new UsageError('--columns needs one comma-separated list of columns', { hint: 'e.g. --columns "Name,Email,Stage"' });
  }
  return refs;
}

function kebab(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
}
