import type { DuckDBConnection } from '@duckdb/node-api';
import { quoteIdent } from '../duckdb/sql-text.js';
import { errorFigures } from './error-figures.js';
import { fieldSql } from './field-sql.js';
import { findMirrorTable, lakeFolderOf, mirrorFields, pickFields } from './mirror-catalog.js';
import { scanFigures } from './scan-figures.js';
import type { ColumnStats, TableStats } from './stats-report.js';
import { truncatedCounts, valueFigures } from './value-figures.js';

export interface StatsQuery {
  /** A table ID, a table's exact name, or its mirror table's name. */
  table: string;
  /** `--columns`: keys, labels, names or field IDs; the fields in this order. */
  columns?: readonly string[];
  /** How many of the most common values per field (default 5). */
  top?: number;
  /** The mirror's path, for messages. */
  db: string;
}

export const DEFAULT_TOP = 5;
/** Days of `perDay`: the last ones that have rows. */
export const PER_DAY = 30;
const DAY_MS = 86_400_000;

/**
 * The profile of a mirrored table, `{table, columns}`, every figure computed by DuckDB (aggregates
 * over the table; what reaches JavaScript is their results). The connection may be read-only.
 */
export async function tableStats(connection: DuckDBConnection, query: StatsQuery): Promise<TableStats> {
  const state = await findMirrorTable(connection, query.table, query.db);
  const all = await mirrorFields(connection, state.tableId);
  const fields = pickFields(all, query.columns).map(fieldSql);
  const table = quoteIdent(state.mirrorTable);
  const scan = await scanFigures(connection, table, fields);
  const values = await valueFigures(connection, table, fields, query.top ?? DEFAULT_TOP);
  const truncated = await truncatedCounts(connection, table);
  const columns: ColumnStats[] = [];
  for (const [i, spec] of fields.entries()) {
    const { field } = spec;
    const figures = scan.fields[i]!;
    const errors = figures.states ? await errorFigures(connection, table, field) : undefined;
    columns.push({
      key: field.key,
      label: field.label,
      type: field.type,
      filled: figures.filled,
      fill: scan.rows === 0 ? 0 : figures.filled / scan.rows,
      distinct: values[i]!.distinct,
      top: values[i]!.top,
      min: figures.min,
      max: figures.max,
      mean: figures.mean,
      truncated: truncated.get(field.key) ?? 0,
      states: figures.states,
      errors: errors?.errors ?? null,
      causes: errors?.causes ?? null,
    });
  }
  return {
    table: {
      id: state.tableId,
      name: state.name,
      workspace: state.workspaceName,
      mirrorTable: state.mirrorTable,
      rows: scan.rows,
      columns: all.length,
      firstCreatedAt: scan.firstCreatedAt,
      lastCreatedAt: scan.lastCreatedAt,
      perDay: await perDay(connection, table),
      lastSync: state.lastSyncAt,
      verifiedAt: state.verifiedAt,
      lake: await lakeFolderOf(connection, state.tableId),
    },
    columns,
  };
}

async function perDay(connection: DuckDBConnection, table: string): Promise<Array<{ day: string; rows: number }>> {
  const reader = await connection.runAndReadAll(
    `SELECT CAST(floor(epoch_ms("_createdAt") / ${DAY_MS}) AS BIGINT) AS d, count(*) AS n FROM ${table} ` +
      `WHERE "_createdAt" IS NOT NULL GROUP BY d ORDER BY d DESC LIMIT ${PER_DAY}`,
  );
  return reader
    .getRowObjectsJS()
    .reverse()
    .map((row) => ({ day: new Date(Number(row.d) * DAY_MS).toISOString().slice(0, 10), rows: Number(row.n) }));
}
