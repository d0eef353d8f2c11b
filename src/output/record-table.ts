import type { ChalkInstance } from 'chalk';
import type { OutputRecord } from '../records/row-shaper.js';
import { GAP, cellDisplay, displayWidth, renderTable, type TableColumn } from './table.js';

// `--format table` of rows and query: records as the aligned, borderless table the listing commands
// print, fitted to a width: long cells cut with …, and the columns that cannot fit at all left out
// (named, so the caller can say so) rather than wrapping every line.

export interface RecordColumn {
  key: string;
  /** Numbers are right-aligned. */
  align?: 'left' | 'right';
  /** Dimmed when colour is on (row IDs). */
  dim?: boolean;
  /** False: never cut (row IDs, which are no use cut). */
  shrink?: boolean;
}

/**
 * A column is shown only if it can have at least this many characters (or its natural width): a
 * table of a few readable columns, and the rest named as left out, reads better than every column
 * cut to a stub.
 */
export const MIN_RECORD_COLUMN_WIDTH = 16;

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
  const natural = columns.map((column, i) => Math.max(displayWidth(column.key), ...cells.map((row) => displayWidth(row[i]!))));
  const shown = columnsThatFit(
    natural.map((width, i) => (columns[i]!.shrink === false ? width : Math.min(width, MIN_RECORD_COLUMN_WIDTH))),
    options.width,
  );
  const tableColumns = columns.slice(0, shown).map((column, i): TableColumn<string[]> => ({
    header: cellDisplay(column.key),
    value: (row) => row[i],
    align: column.align ?? 'left',
    shrink: column.shrink !== false,
    ...(column.dim ? { style: (color: ChalkInstance, text: string) => color.dim(text) } : {}),
  }));
  return {
    text: renderTable(cells, tableColumns, { width: options.width, ...(options.color ? { color: options.color } : {}) }),
    hidden: columns.slice(shown).map((column) => column.key),
  };
}

/** How many leading columns fit `width`, each at its least width (at least one column). */
export function columnsThatFit(least: readonly number[], width: number): number {
  let used = 0;
  for (let i = 0; i < least.length; i += 1) {
    used += least[i]! + (i > 0 ? GAP : 0);
    if (used > width) return Math.max(1, i);
  }
  return least.length;
}
