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
const [DASH, T, COLON, DOT, Z] = ['-', 'T', ':', '.', 'Z'].map((char) => char.charCodeAt(0)) as [number, number, number, number, number];

/**
 * Whether `text` is an instant exactly as Date#toISOString writes it (`YYYY-MM-DDTHH:MM:SS.mmmZ`, a
 * real calendar date, hours 00-23): then it converts to itself, and the parse and format can be skipped.
 */
export function isCanonicalInstant(text: string): boolean {
  return canonicalInstantMillis(text) !== undefined;
}

/**
 * Milliseconds since the epoch of `text` when it is canonical (isCanonicalInstant; the proleptic
 * Gregorian calendar, as DuckDB's), else undefined: one pass over its characters, for the appender,
 * which counts every instant of a page.
 */
export function canonicalInstantMillis(text: string): number | undefined {
  if (
    text.length !== 24 ||
    text.charCodeAt(4) !== DASH ||
    text.charCodeAt(7) !== DASH ||
    text.charCodeAt(10) !== T ||
    text.charCodeAt(13) !== COLON ||
    text.charCodeAt(16) !== COLON ||
    text.charCodeAt(19) !== DOT ||
    text.charCodeAt(23) !== Z
  ) {
    return undefined;
  }
  const year = twoDigits(text, 0) * 100 + twoDigits(text, 2);
  const month = twoDigits(text, 5);
  const day = twoDigits(text, 8);
  const hour = twoDigits(text, 11);
  const minute = twoDigits(text, 14);
  const second = twoDigits(text, 17);
  const ms = digitAt(text, 20) * 100 + twoDigits(text, 21);
  if (!(year >= 0 && month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month))) return undefined;
  if (!(hour <= 23 && minute <= 59 && second <= 59 && ms >= 0)) return undefined;
  // days from 1970-01-01 (H. Hinnant's days_from_civil)
  const shifted = year - (month <= 2 ? 1 : 0);
  const era = Math.floor(shifted / 400);
  const yearOfEra = shifted - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  const days = era * 146097 + dayOfEra - 719468;
  return ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + ms;
}

// a character that is not a digit makes its field NaN, which no range check lets through (module-level, not
// closures: the appender calls this for every instant of every row)
function digitAt(text: string, at: number): number {
  const value = text.charCodeAt(at) - DIGIT_0;
  return value >= 0 && value <= 9 ? value : NaN;
}

function twoDigits(text: string, at: number): number {
  return digitAt(text, at) * 10 + digitAt(text, at + 1);
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
