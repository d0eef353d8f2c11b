import type { DuckDBConnection } from '@duckdb/node-api';
import { quoteIdent } from '../duckdb/sql-text.js';
import { TRUNCATED_KEY } from '../records/typed-plan.js';
import type { FieldSql } from './field-sql.js';
import type { TopValue } from './stats-report.js';

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
