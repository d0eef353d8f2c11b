import type { SqlType, TypedValue } from '../records/typed-values.js';

// Rows of typed values cross from JavaScript into DuckDB as one JSON text each (one value a row, not
// one a cell: a value crossing costs more than DuckDB's JSON reader), appended to a one-column table of
// VARCHAR, then typed by DuckDB as they move on. Parquet files (src/parquet/) and the mirror both take
// this way, so a value is the same in both.

/**
 * A row's typed values as one JSON array. A string with a lone surrogate (not valid Unicode) is made
 * well-formed first, as it would be on its way into DuckDB as a value: DuckDB's JSON reader refuses it.
 */
export function rowJson(row: readonly TypedValue[]): string {
  const json = JSON.stringify(row);
  if (!json.includes('\\ud')) return json;
  return JSON.stringify(
    row.map((value) => (typeof value === 'string' ? wellFormed(value) : Array.isArray(value) ? value.map(wellFormed) : value)),
  );
}

/** Each lone surrogate replaced by U+FFFD (String.prototype.toWellFormed, which ES2023 does not have yet). */
function wellFormed(text: string): string {
  return text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
}

/**
 * The JSON arrays of a VARCHAR column `column` of `from` as a relation `v` (each array as VARCHAR[]):
 * `SELECT …values(types)… FROM ${jsonRowsFrom(...)}`.
 */
export function jsonRowsFrom(from: string, column: string): string {
  return `(SELECT json_transform(${column}, '["VARCHAR"]') AS v FROM ${from})`;
}

/** Expressions of the values of `v` (see jsonRowsFrom), item by item, as the columns' types. */
export function jsonRowValues(types: readonly SqlType[]): string[] {
  return types.map((type, i) => typedFromText(type, `v[${i + 1}]`));
}

/** A value of the JSON array (as json_transform gives it: text, or the JSON text of a list) as its column's type. */
function typedFromText(type: SqlType, text: string): string {
  switch (type) {
    case 'VARCHAR':
      return text;
    case 'VARCHAR[]':
      return `CAST(CAST(${text} AS JSON) AS VARCHAR[])`;
    default:
      return `CAST(${text} AS ${type})`;
  }
}
