import type { ChalkInstance } from 'chalk';
import type { OutputRecord } from '../records/index.js';
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
  /** Asked for by name (--columns, --status-columns): left out for want of room only after every other column. */
  asked?: boolean;
  /** Objects as a member's name (`names`) or as compact JSON (`json`); unknown columns (SQL results): a name when an object has one. */
  objects?: 'names' | 'json';
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

/**
 * A record value as one line of terminal text: '' for null, arrays of plain values joined with `, `,
 * a member by its name, other objects as compact JSON (`objects` says which a column holds; without it,
 * an object with a name is taken for a member).
 */
export function recordCellText(value: unknown, objects?: RecordColumn['objects']): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return cellDisplay(value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  const name = objects === 'json' ? () => undefined : named;
  if (Array.isArray(value) && value.every((item) => item === null || isPlain(item) || name(item) !== undefined)) {
    return cellDisplay(value.map((item) => (item === null ? '' : (name(item) ?? String(item)))).join(', '));
  }
  return cellDisplay(name(value) ?? JSON.stringify(value, (_key, item: unknown) => (typeof item === 'bigint' ? String(item) : item)));
}

const isPlain = (item: unknown): boolean => ['string', 'number', 'boolean', 'bigint'].includes(typeof item);

/** A member's name (`{id, name, email}` → name). */
function named(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { name } = value as { name?: unknown };
  return typeof name === 'string' && name !== '' ? name : undefined;
}

export function renderRecordTable(
  records: readonly OutputRecord[],
  columns: readonly RecordColumn[],
  options: RecordTableOptions,
): RecordTable {
  const cells = records.map((record) => columns.map((column) => recordCellText(record[column.key], column.objects)));
  const natural = columns.map((column, i) => Math.max(displayWidth(column.key), ...cells.map((row) => displayWidth(row[i]!))));
  const shown = columnsThatFit(
    natural.map((width, i) => (columns[i]!.shrink === false ? width : Math.min(width, MIN_RECORD_COLUMN_WIDTH))),
    options.width,
    columns.map((column) => column.asked === true),
  );
  const tableColumns = shown.map((index): TableColumn<string[]> => ({ ...tableColumn(columns[index]!), value: (row) => row[index] }));
  return {
    text: renderTable(cells, tableColumns, { width: options.width, ...(options.color ? { color: options.color } : {}) }),
    hidden: columns.filter((_, index) => !shown.includes(index)).map((column) => column.key),
  };
}

function tableColumn(column: RecordColumn): Omit<TableColumn<string[]>, 'value'> {
  return {
    header: cellDisplay(column.key),
    align: column.align ?? 'left',
    shrink: column.shrink !== false,
    ...(column.dim ? { style: (color: ChalkInstance, text: string) => color.dim(text) } : {}),
  };
}

/**
 * The columns that fit `width`, each at its least width (at least one column), in order: while they do
 * not fit, the last column not `asked` for is left out, and only then the last asked for.
 */
export function columnsThatFit(least: readonly number[], width: number, asked: readonly boolean[] = []): number[] {
  const shown = least.map((_, index) => index);
  const used = (): number => shown.reduce((sum, index, i) => sum + least[index]! + (i > 0 ? GAP : 0), 0);
  while (shown.length > 1 && used() > width) {
    const drop = shown.findLastIndex((index) => asked[index] !== true);
    shown.splice(drop >= 0 ? drop : shown.length - 1, 1);
  }
  return shown;
}

// `--format table` of a query's result (`tds sql`, `tds diff`): rows held for the table up to a bound,
// the rest only counted, so a large result neither fills memory nor a screen.

/** The first `maxRows` records, and how many more there were. */
export async function firstRows<R>(records: AsyncIterable<R>, maxRows: number): Promise<{ rows: R[]; more: number }> {
  const rows: R[] = [];
  let more = 0;
  for await (const record of records) {
    if (rows.length < maxRows) rows.push(record);
    else more += 1;
  }
  return { rows, more };
}

/** A cell of a result table: text as it is, other values as JSON, null empty. */
export function resultCellText(value: unknown): string | null {
  return value === null || value === undefined ? null : typeof value === 'string' ? value : JSON.stringify(value);
}
