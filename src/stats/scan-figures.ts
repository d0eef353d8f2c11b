import type { DuckDBConnection } from '@duckdb/node-api';
import { quoteIdent, quoteLiteral } from '../duckdb/sql-text.js';
import type { FieldSql } from './field-sql.js';
import { instantOf } from './field-sql.js';
import { RUN_STATES, type RunState } from './stats-report.js';

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
