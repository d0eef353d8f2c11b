import type { StaleFields } from '../mirror/index.js';
import type { ColumnType } from '../service/index.js';

// What `tds stats` reports (docs/cli.md "Stats"): `{table, columns}`, the same for every output (the
// terminal, JSON, one record per column, the HTML page) and for the MCP server's `table_stats`.

/** The run states of an action cell, `none` for a cell without one. */
export const RUN_STATES = ['success', 'failed', 'skipped', 'stopped', 'queued', 'waiting', 'running', 'manual', 'none'] as const;
export type RunState = (typeof RUN_STATES)[number];

/** With `verifiedAt`, whether the table is past the bound its follower keeps it within (`maxStale`, `stale`, `staleFor`). */
export interface TableFigures extends StaleFields {
  /** The service's table ID. */
  id: string;
  name: string;
  workspace: string;
  /** The DuckDB table of the mirror. */
  mirrorTable: string;
  rows: number;
  /** Fields of the table (all of them, whatever `--columns` picked). */
  columns: number;
  firstCreatedAt: string | null;
  lastCreatedAt: string | null;
  /** Rows created per day (UTC), the last 30 days that have rows, oldest first. */
  perDay: Array<{ day: string; rows: number }>;
  /** When the table's last sync ended. */
  lastSync: string | null;
  /** When the table's last pass over every row began (the service's clock): exact as of then. */
  verifiedAt: string | null;
  /** The table's folder in the lake of `tds sync --lake`, or null. */
  lake: string | null;
}

export interface TopValue {
  /** As in an export: a select's label, a multi_select's item, a number, a boolean, an instant, a JSON value. */
  value: unknown;
  count: number;
}

export interface ErrorCause {
  /** The message with its variable parts as placeholders (see error-cause.ts); `(no message)` for a failed cell without one. */
  cause: string;
  count: number;
  /** One full message of this cause (of the first row in `ids`). */
  example: string | null;
  /** Up to 3 row IDs, in ID order. */
  ids: string[];
}

export interface ColumnStats {
  /** The export's key (label by default, ` (2)` when shared). */
  key: string;
  label: string;
  type: ColumnType;
  /** Non-empty cells: not null, not empty text, not an empty list. */
  filled: number;
  /** filled / rows (0 for no rows). */
  fill: number;
  /** Different non-empty values (multi_select: items). */
  distinct: number;
  /** The most common values, most frequent first (ties in value order); multi_select by item. */
  top: TopValue[];
  /** number: the smallest value; date: the earliest instant. */
  min: number | string | null;
  max: number | string | null;
  /** number only. */
  mean: number | null;
  /** Cells the service cut at 200 characters. */
  truncated: number;
  /** Columns whose cells carry a status (action columns); null for the others. */
  states: Record<RunState, number> | null;
  /** The most frequent failure causes (at most 20), most frequent first; null when the cells carry no status. */
  errors: ErrorCause[] | null;
  /** How many causes there are in all (errors lists the first 20). */
  causes: number | null;
}

export interface TableStats {
  table: TableFigures;
  columns: ColumnStats[];
}
