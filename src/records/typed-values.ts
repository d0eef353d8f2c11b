import type { ColumnType } from '../service/index.js';

// The one type mapping of the mirror and of Parquet exports (docs/cli.md "Sync" (column types)): the SQL type of
// each column type, and a cell value converted to it. A value that does not fit is NULL and counted.

export type SqlType = 'VARCHAR' | 'DOUBLE' | 'BOOLEAN' | 'TIMESTAMPTZ' | 'VARCHAR[]' | 'JSON';

export const SQL_TYPE_OF: Readonly<Record<ColumnType, SqlType>> = {
  text: 'VARCHAR',
  email: 'VARCHAR',
  phone_number: 'VARCHAR',
  url: 'VARCHAR',
  image: 'VARCHAR',
  member: 'JSON',
  input: 'VARCHAR',
  number: 'DOUBLE',
  boolean: 'BOOLEAN',
  date: 'TIMESTAMPTZ',
  select: 'VARCHAR',
  multi_select: 'VARCHAR[]',
  object: 'JSON',
  webhook: 'JSON',
  formula: 'JSON',
  action: 'JSON',
};

/** A typed value as it is handed to the engine: JSON and TIMESTAMPTZ as their text (cast in SQL). */
export type TypedValue = string | number | boolean | readonly string[] | null;

/** Marks a value that does not fit its column's type. */
export const UNFIT = Symbol('unfit');

/** A record value (null when the cell is empty) converted to `type`, or UNFIT. */
export function toTyped(type: SqlType, value: unknown): TypedValue | typeof UNFIT {
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'VARCHAR':
      return typeof value === 'string' ? value : JSON.stringify(value);
    case 'DOUBLE':
      return toDouble(value);
    case 'BOOLEAN':
      if (typeof value === 'boolean') return value;
      return value === 'true' ? true : value === 'false' ? false : UNFIT;
    case 'TIMESTAMPTZ':
      return toInstant(value);
    case 'VARCHAR[]':
      return toTextList(value);
    case 'JSON':
      return JSON.stringify(value);
  }
}

function toDouble(value: unknown): number | typeof UNFIT {
  if (typeof value === 'number') return Number.isFinite(value) ? value : UNFIT;
  if (typeof value === 'string' && /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/.test(value.trim())) {
    const number = Number(value);
    return Number.isFinite(number) ? number : UNFIT;
  }
  return UNFIT;
}

/** An ISO 8601 date or date-time as an instant in UTC; a date alone is that day's start in UTC. */
function toInstant(value: unknown): string | typeof UNFIT {
  if (typeof value !== 'string') return UNFIT;
  // the service's own form is its own canonical text: no parse and format (about 1 µs a value)
  if (isCanonicalInstant(value)) return value;
  if (!/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(value.trim())) return UNFIT;
  const ms = Date.parse(value.trim());
  return Number.isNaN(ms) ? UNFIT : new Date(ms).toISOString();
}

const DIGIT_0 = 48;
/** `0` where a digit goes; every other character is the one of Date#toISOString. */
const CANONICAL_TEMPLATE = '0000-00-00T00:00:00.000Z';

/**
 * Whether `text` is an instant exactly as Date#toISOString writes it (`YYYY-MM-DDTHH:MM:SS.mmmZ`, a
 * real calendar date, hours 00-23): then it converts to itself, and the parse and format can be skipped.
 */
export function isCanonicalInstant(text: string): boolean {
  if (text.length !== 24) return false;
  for (let i = 0; i < 24; i += 1) {
    const code = text.charCodeAt(i);
    const template = CANONICAL_TEMPLATE.charCodeAt(i);
    if (template === DIGIT_0 ? code < DIGIT_0 || code > DIGIT_0 + 9 : code !== template) return false;
  }
  const number = (start: number, length: number): number => {
    let result = 0;
    for (let i = start; i < start + length; i += 1) result = result * 10 + text.charCodeAt(i) - DIGIT_0;
    return result;
  };
  const year = number(0, 4);
  const month = number(5, 2);
  const day = number(8, 2);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return false;
  return number(11, 2) <= 23 && number(14, 2) <= 59 && number(17, 2) <= 59;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** A list of plain values as text items; one plain value is a list of one. */
function toTextList(value: unknown): readonly string[] | typeof UNFIT {
  const items = Array.isArray(value) ? value : [value];
  const texts: string[] = [];
  for (const item of items) {
    if (typeof item === 'string') texts.push(item);
    else if (typeof item === 'number' || typeof item === 'boolean') texts.push(String(item));
    else return UNFIT;
  }
  return texts;
}
