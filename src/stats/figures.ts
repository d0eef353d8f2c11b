import type { DuckDBConnection } from '@duckdb/node-api';
import { quoteIdent, quoteLiteral } from '../duckdb/index.js';
import { fieldSql, type FieldSql, instantOf } from './field-sql.js';
import { findMirrorTable, lakeFolderOf, mirrorFields, pickFields } from './mirror-catalog.js';
import { type ColumnStats, type TableStats, RUN_STATES, type RunState, type TopValue, type ErrorCause } from './stats-report.js';
import { TRUNCATED_KEY } from '../records/index.js';
import { staleFields, type StoredField } from '../mirror/index.js';
import { causeSql, cutSql } from './error-cause.js';

export interface StatsQuery {
  /** A table ID, a table's exact name, or its mirror table's name. */
  table: string;
  /** `--columns`: keys, labels, names or field IDs; the fields in this order. */
  columns?: readonly string[];
  /** How many of the most common values per field (default 5). */
  top?: number;
  /** The mirror's path, for messages. */
  db: string;
  /** Now on the service's clock (ms), which says a table stale (default: this machine's clock). */
  now?: number;
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
      ...staleFields(state, query.now ?? Date.now()),
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

// The figures one pass over the table gives (one SELECT of aggregates): rows, the creation range,
// and per field its non-empty cells, its range and mean, and the count of each run state.

export interface FieldScan {
  filled: number;
  min: number | string | null;
  max: number | string | null;
  mean: number | null;
  states: Record<RunState, number> | null;
}

export interface ScanFigures {
  rows: number;
  firstCreatedAt: string | null;
  lastCreatedAt: string | null;
  fields: FieldScan[];
}

/** A figure of the SELECT, and what it becomes in the report. */
interface Aggregate {
  sql: string;
  put(value: unknown, scan: FieldScan): void;
}

const count = (value: unknown): number => Number(value ?? 0);
const maybeNumber = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));

export async function scanFigures(connection: DuckDBConnection, table: string, fields: readonly FieldSql[]): Promise<ScanFigures> {
  const perField = fields.map(aggregatesOf);
  const select = [
    'count(*)',
    'epoch_ms(min("_createdAt"))',
    'epoch_ms(max("_createdAt"))',
    ...perField.flatMap((aggregates) => aggregates.map((aggregate) => aggregate.sql)),
  ];
  const reader = await connection.runAndReadAll(`SELECT ${select.join(', ')} FROM ${table}`);
  const row = reader.getRows()[0] ?? [];
  let at = 3;
  const scans = perField.map((aggregates, i) => {
    const scan: FieldScan = { filled: 0, min: null, max: null, mean: null, states: fields[i]!.field.statusKey ? emptyStates() : null };
    for (const aggregate of aggregates) aggregate.put(row[at++], scan);
    return scan;
  });
  return { rows: count(row[0]), firstCreatedAt: instantOf(row[1]), lastCreatedAt: instantOf(row[2]), fields: scans };
}

function aggregatesOf(spec: FieldSql): Aggregate[] {
  const { column, filled, sqlType, field } = spec;
  const aggregates: Aggregate[] = [{ sql: `count(*) FILTER (WHERE ${filled})`, put: (value, scan) => (scan.filled = count(value)) }];
  if (sqlType === 'DOUBLE') {
    aggregates.push(
      { sql: `min(${column})`, put: (value, scan) => (scan.min = maybeNumber(value)) },
      { sql: `max(${column})`, put: (value, scan) => (scan.max = maybeNumber(value)) },
      { sql: `favg(${column})`, put: (value, scan) => (scan.mean = maybeNumber(value)) },
    );
  }
  if (sqlType === 'TIMESTAMPTZ') {
    aggregates.push(
      { sql: `epoch_ms(min(${column}))`, put: (value, scan) => (scan.min = instantOf(value)) },
      { sql: `epoch_ms(max(${column}))`, put: (value, scan) => (scan.max = instantOf(value)) },
    );
  }
  if (field.statusKey) {
    const status = quoteIdent(field.statusKey);
    for (const state of RUN_STATES) {
      const where = state === 'none' ? `${status} IS NULL` : `${status} = ${quoteLiteral(state)}`;
      aggregates.push({ sql: `count(*) FILTER (WHERE ${where})`, put: (value, scan) => (scan.states![state] = count(value)) });
    }
  }
  return aggregates;
}

function emptyStates(): Record<RunState, number> {
  return Object.fromEntries(RUN_STATES.map((state) => [state, 0])) as Record<RunState, number>;
}

// Per field, its different values counted by DuckDB (GROUP BY): how many there are, and the `top`
// most common, most frequent first, ties in the values' own order. One statement for every field.

export interface ValueFigures {
  distinct: number;
  top: TopValue[];
}

export async function valueFigures(
  connection: DuckDBConnection,
  table: string,
  fields: readonly FieldSql[],
  top: number,
): Promise<ValueFigures[]> {
  if (fields.length === 0) return [];
  // min() of {k: -count, v: value} keeps the `top` most common, ties by value, in one pass over the groups
  const topList =
    top > 0
      ? `list_transform(min({k: -n, v: v}, ${top}), x -> {count: -x.k, value: CAST(x.v AS VARCHAR)})`
      : `[]::STRUCT(count BIGINT, value VARCHAR)[]`;
  const branches = fields.map(
    (spec, i) =>
      `SELECT ${i} AS i, count(*) AS d, ${topList} AS top FROM (SELECT v, count(*) AS n FROM (${spec.values(table)}) GROUP BY v)`,
  );
  const reader = await connection.runAndReadAll(branches.join(' UNION ALL '));
  const figures: ValueFigures[] = fields.map(() => ({ distinct: 0, top: [] }));
  for (const row of reader.getRowObjectsJS()) {
    const i = Number(row.i);
    const values = (row.top ?? []) as Array<{ count: unknown; value: string }>;
    figures[i] = {
      distinct: Number(row.d),
      top: values.map((entry) => ({ value: fields[i]!.readValue(entry.value), count: Number(entry.count) })),
    };
  }
  return figures;
}

/** Cells cut at 200 characters, by column key (from each row's list of cut keys). */
export async function truncatedCounts(connection: DuckDBConnection, table: string): Promise<Map<string, number>> {
  const reader = await connection.runAndReadAll(
    `SELECT k, count(*) AS n FROM (SELECT unnest(${quoteIdent(TRUNCATED_KEY)}) AS k FROM ${table}) GROUP BY k`,
  );
  return new Map(reader.getRowObjectsJS().map((row) => [String(row.k), Number(row.n)]));
}

/** Causes listed per column, most frequent first (`causes` says how many there are in all). */
export const MAX_CAUSES = 20;
/** Row IDs given per cause. */
export const IDS_PER_CAUSE = 3;
/** The longest example message, in characters; a longer one is cut there and ends with `…` (its row still counts). */
export const MAX_EXAMPLE_CHARS = 500;
/** The cause of a failed cell that has no error message. */
export const NO_MESSAGE = '(no message)';

export interface ErrorFigures {
  errors: ErrorCause[];
  causes: number;
}

/**
 * The failure causes of an action column: its cells with an error message or the state `failed`,
 * grouped by cause (each distinct message's cause is worked out once, then joined back to its rows).
 */
export async function errorFigures(connection: DuckDBConnection, table: string, field: StoredField): Promise<ErrorFigures> {
  if (!field.errorKey || !field.statusKey) return { errors: [], causes: 0 };
  const error = quoteIdent(field.errorKey);
  const status = quoteIdent(field.statusKey);
  const reader = await connection.runAndReadAll(`
    WITH cells AS (SELECT "_id" AS id, ${error} AS message FROM ${table} WHERE ${error} IS NOT NULL OR ${status} = 'failed'),
    messages AS (SELECT message, ${causeSql('message')} AS cause FROM (SELECT DISTINCT message FROM cells WHERE message IS NOT NULL)),
    rows AS (
      SELECT cells.id, cells.message, coalesce(nullif(messages.cause, ''), '${NO_MESSAGE}') AS cause
      FROM cells LEFT JOIN messages ON cells.message = messages.message
    )
    SELECT cause, count(*) AS n, ${cutSql('arg_min(message, id)', MAX_EXAMPLE_CHARS)} AS example, min(id, ${IDS_PER_CAUSE}) AS ids, count(*) OVER () AS causes
    FROM rows GROUP BY cause ORDER BY n DESC, cause LIMIT ${MAX_CAUSES}`);
  const rows = reader.getRowObjectsJS();
  return {
    causes: Number(rows[0]?.causes ?? 0),
    errors: rows.map((row) => ({
      cause: String(row.cause),
      count: Number(row.n),
      example: row.example === null || row.example === undefined ? null : String(row.example),
      ids: (row.ids as unknown[]).map(String),
    })),
  };
}
