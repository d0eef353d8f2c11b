import type { ColumnType } from '../spec/index.js';

// The one type mapping of the mirror and of Parquet exports (CLI.md "Column types"): the SQL type of
// each column type, and a cell value converted to it. A value that does not fit is NULL and counted.

export type SqlType = 'VARCHAR' | 'DOUBLE' | 'BOOLEAN' | 'TIMESTAMPTZ' | 'VARCHAR[]' | 'JSON';

export const SQL_TYPE_OF: Readonly<Record<ColumnType, SqlType>> = {
  text: 'VARCHAR',
  email: 'VARCHAR',
  phone_number: 'VARCHAR',
  url: 'VARCHAR',
  image: 'VARCHAR',
  member: 'VARCHAR',
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
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(value.trim())) {
    return UNFIT;
  }
  const ms = Date.parse(value.trim());
  return Number.isNaN(ms) ? UNFIT : new Date(ms).toISOString();
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
