import type { ChalkInstance } from 'chalk';
import type { OutputRecord } from '../records/output-record.js';
import { GAP, MIN_SHRUNK_WIDTH, cellDisplay, displayWidth, renderTable, type TableColumn } from './table.js';

// `--format table` of rows and query: records as the aligned, borderless table the listing commands
// print, fitted to a width: long cells cut with …, and the columns that cannot fit at all left out
// (named, so the caller can say so) rather than wrapping every line.

export interface RecordColumn {
  key: string;
  /** Numbers are right-aligned. */
  align?: 'left' | 'right';
  /** Dimmed when colour is on (row IDs). */
  dim?: boolean;
}

export interface RecordTableOptions {
  /** Total width available; Infinity for a pipe without COLUMNS (whole cells, every column). */
  width: number;
  /** Present only when colour is on. */
  color?: ChalkInstance;
}

export interface RecordTable {
  /** The table, header first, without a final newline. */
  text: string;
  /** Keys of the columns left out because they did not fit the width, in record order. */
  hidden: string[];
}

/** A record value as one line of terminal text: '' for null, arrays of plain values joined with `, `, other objects as JSON. */
export function recordCellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return cellDisplay(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value) && value.every((item) => item === null || ['string', 'number', 'boolean'].includes(typeof item))) {
    return cellDisplay(value.map((item) => (item === null ? '' : String(item))).join(', '));
  }
  return cellDisplay(JSON.stringify(value));
}

export function renderRecordTable(
  records: readonly OutputRecord[],
  columns: readonly RecordColumn[],
  options: RecordTableOptions,
): RecordTable {
  const cells = records.map((record) => columns.map((column) => recordCellText(record[column.key])));
  const shown = columnsThatFit(
    columns.map((column, i) => Math.max(displayWidth(column.key), ...cells.map((row) => displayWidth(row[i]!)))),
    options.width,
  );
  const tableColumns = columns.slice(0, shown).map((column, i): TableColumn<string[]> => ({
    header: cellDisplay(column.key),
    value: (row) => row[i],
    align: column.align ?? 'left',
    shrink: true,
    ...(column.dim ? { style: (color: ChalkInstance, text: string) => color.dim(text) } : {}),
  }));
  return {
    text: renderTable(cells, tableColumns, { width: options.width, ...(options.color ? { color: options.color } : {}) }),
    hidden: columns.slice(shown).map((column) => column.key),
  };
}

/** How many leading columns fit `width` when each may be cut to MIN_SHRUNK_WIDTH (at least one). */
export function columnsThatFit(natural: readonly number[], width: number): number {
  let used = 0;
  for (let i = 0; i < natural.length; i += 1) {
    used += Math.min(natural[i]!, MIN_SHRUNK_WIDTH) + (i > 0 ? GAP : 0);
    if (used > width) return Math.max(1, i);
  }
  return natural.length;
}
