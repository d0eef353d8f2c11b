import type { ExportFormat } from '../output/format.js';
import { planRecord } from '../records/record-plan.js';
import type { ShapeOptions } from '../records/shape-options.js';
import type { FilterGroup } from '../service/index.js';
import type { ExportSource, ExportTarget } from './export-request.js';
import { parquetColumns } from './parquet-columns.js';

/**
 * What must be the same for a resumed export to continue the partial file: the query (table,
 * endpoint, search text, filters), the record shape (flags and the columns they resolved to), and
 * the output format with its CSV options. Page size and --limit may change between runs.
 */
export interface ExportFingerprint {
  tableId: string;
  endpoint: 'rows' | 'query';
  search: string;
  filters: FilterGroup | null;
  shape: ShapeOptions;
  /** `fieldId=key` of each column written, in order (changes when the table's columns change). */
  columns: string[];
  format: ExportFormat;
  csv: { bom: boolean; crlf: boolean; join: string | null; safeFormulas: boolean; maxCellChars: number | null };
}

/** What a fingerprint is taken of: the query, the record shape, and the format with its CSV options. */
export type FingerprintOf = Pick<ExportSource, 'table' | 'endpoint' | 'search' | 'filters' | 'fields'> &
  Pick<ExportTarget, 'format' | 'csv'> & { shape: ShapeOptions };

export function exportFingerprint(request: FingerprintOf): ExportFingerprint {
  const { csv } = request;
  return {
    tableId: request.table.id,
    endpoint: request.endpoint,
    search: request.search,
    filters: request.filters ?? null,
    shape: request.shape,
    columns: columnsWritten(request),
    format: request.format,
    csv: { bom: csv.bom, crlf: csv.crlf, join: csv.join ?? null, safeFormulas: csv.safeFormulas, maxCellChars: csv.maxCellChars ?? null },
  };
}

/** `fieldId=key` of each column written (Parquet: each typed column, its type too). */
function columnsWritten(request: FingerprintOf): string[] {
  if (request.format === 'parquet') {
    return parquetColumns(request.fields, request.shape).map((column) => `${column.field?.id ?? column.role}=${column.key}:${column.type}`);
  }
  return planRecord(request.fields, request.shape).columns.map((column) => `${column.field.id}=${column.key}`);
}

const WHAT: Record<keyof ExportFingerprint, string> = {
  tableId: 'the table',
  endpoint: 'the command (rows or query)',
  search: 'the search text (-q)',
  filters: 'the filters (--where/--filter)',
  shape: 'the record options (--header, --columns, --no-meta, --no-system, --cells, --status-columns)',
  columns: "the table's columns (changed since the export began)",
  format: 'the output format',
  csv: 'the CSV options (--bom, --excel, --join, --safe-formulas)',
};

/** What differs between the fingerprint in a checkpoint and the current one, for the message; empty when they match. */
export function fingerprintDifferences(saved: ExportFingerprint, current: ExportFingerprint): string[] {
  return (Object.keys(WHAT) as Array<keyof ExportFingerprint>)
    .filter((member) => canonical(saved[member]) !== canonical(current[member]))
    .map((member) => WHAT[member]);
}

/** JSON text with object keys sorted, so equal values compare equal whatever their key order. */
export function canonical(value: unknown): string {
  return (
    JSON.stringify(value, (_key, inner: unknown) =>
      inner && typeof inner === 'object' && !Array.isArray(inner)
        ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
        : inner,
    ) ?? 'undefined'
  );
}
