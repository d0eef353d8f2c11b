import type { DuckDBType } from '@duckdb/node-api';

/**
 * A DuckDB result value (as @duckdb/node-api's JS conversion gives it) as a plain JSON value, the
 * way exports write records: instants as ISO 8601 text, dates as YYYY-MM-DD, JSON columns as the
 * JSON value they hold, integers beyond 2^53 as their exact digits (text), bytes as base64.
 */
export function plainValue(value: unknown, type: DuckDBType): unknown {
  if (value === null || value === undefined) return null;
  if (type.alias === 'JSON' && typeof value === 'string') return parseJson(value);
  if (value instanceof Date) return type.toString() === 'DATE' ? value.toISOString().slice(0, 10) : value.toISOString();
  return plain(value);
}

function plain(value: unknown): unknown {
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  if (value instanceof Date) return value.toISOString();
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (Array.isArray(value)) return value.map(plain);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, plain(inner)]));
  return value;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
