import { quoteIdent } from '../duckdb/index.js';
import type { StoredField } from '../mirror/index.js';
import { SQL_TYPE_OF, type SqlType } from '../records/index.js';

// How each mirror column type is profiled in SQL: what a non-empty cell is, the value its distinct
// count and top values group by, and how such a value (as text) reads back as an export value.

export interface FieldSql {
  field: StoredField;
  sqlType: SqlType;
  column: string;
  /** true for a non-empty cell: not NULL, not '' (text), not an empty list, not JSON null, "" or []. */
  filled: string;
  /** A query of one column `v`: the non-empty values to count (a multi_select's items), from `table`. */
  values(table: string): string;
  /** A top value's text (CAST … AS VARCHAR of `v`) as the export shows it. */
  readValue(text: string): unknown;
}

export function fieldSql(field: StoredField): FieldSql {
  const sqlType = SQL_TYPE_OF[field.type];
  const column = quoteIdent(field.key);
  const filled = FILLED[sqlType](column);
  return {
    field,
    sqlType,
    column,
    filled,
    values: (table) =>
      sqlType === 'VARCHAR[]'
        ? `SELECT v FROM (SELECT unnest(${column}) AS v FROM ${table}) WHERE v IS NOT NULL AND v <> ''`
        : `SELECT ${sqlType === 'TIMESTAMPTZ' ? `epoch_ms(${column})` : sqlType === 'JSON' ? `CAST(${column} AS VARCHAR)` : column} AS v FROM ${table} WHERE ${filled}`,
    readValue: READ[sqlType],
  };
}

const FILLED: Record<SqlType, (column: string) => string> = {
  VARCHAR: (column) => `(${column} IS NOT NULL AND ${column} <> '')`,
  'VARCHAR[]': (column) => `(len(${column}) > 0)`,
  JSON: (column) => `(${column} IS NOT NULL AND CAST(${column} AS VARCHAR) NOT IN ('null', '""', '[]'))`,
  DOUBLE: (column) => `(${column} IS NOT NULL)`,
  BOOLEAN: (column) => `(${column} IS NOT NULL)`,
  TIMESTAMPTZ: (column) => `(${column} IS NOT NULL)`,
};

const READ: Record<SqlType, (text: string) => unknown> = {
  VARCHAR: (text) => text,
  'VARCHAR[]': (text) => text,
  JSON: (text) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  },
  DOUBLE: (text) => Number(text),
  BOOLEAN: (text) => text === 'true',
  TIMESTAMPTZ: (text) => new Date(Number(text)).toISOString(),
};

/** An instant from DuckDB's epoch_ms (a BIGINT, as bigint or number), as ISO 8601 text. */
export function instantOf(ms: unknown): string | null {
  return ms === null || ms === undefined ? null : new Date(Number(ms)).toISOString();
}
