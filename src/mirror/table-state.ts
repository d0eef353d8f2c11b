import type { DuckDBConnection } from '@duckdb/node-api';
import { matchName, type HeaderMode } from '../records/index.js';

/**
 * A *complete* pass reads every row. Its mode is stored (in the mirror and _tds_syncs) and shown (`--full`,
 * `mode: "full"`) as `full`: the value stays, the code says what it is.
 */
export const COMPLETE_PASS = 'full';
export type PassMode = typeof COMPLETE_PASS | 'incremental';

/** Where a pass over a table stands (saved with every group of pages, so an interrupted one continues). */
export interface PassState {
  mode: PassMode;
  /** The `nextCursor` after the last page written; null before the first page. */
  cursor: string | null;
  /**
   * When the pass began on the service's clock: the Date of its first answer, else the creation time of
   * its newest row (earlier); null before its first page. Kept when it continues or starts over.
   */
  startedAt: string | null;
  /** Creation time of the newest row this pass saw (its first row). */
  top: string | null;
  /** Creation time of the oldest row this pass saw so far. */
  oldest: string | null;
  requests: number;
  rows: number;
  inserted: number;
  updated: number;
  unfit: number;
}

/** A table's row of _tds_tables. */
export interface TableState {
  tableId: string;
  name: string;
  workspaceId: string;
  workspaceName: string;
  mirrorTable: string;
  header: HeaderMode;
  /** Creation time of the newest row synced. */
  newestCreatedAt: string | null;
  /** Creation time of the oldest row that had an action cell still queued, waiting or running. */
  pendingSince: string | null;
  /** Where an incremental sync stops reading (see pass.ts). */
  watermark: string | null;
  rowCount: number | null;
  serviceRowCount: number | null;
  lastSyncAt: string | null;
  pass: PassState | null;
  /** T__history and the macros T_at_sync and T_at (see history/history-objects.ts); null before the table is made. */
  historyTable: string | null;
  atSyncMacro: string | null;
  atMacro: string | null;
  /** When the last complete pass over every row began (the service's clock): rows created before are exact as of then or later. */
  verifiedAt: string | null;
  /** A verification of --follow under way (see follow-verify.ts); null between them. */
  verify: VerifyState | null;
  /**
   * The bound the last follower kept `verifiedAt` within (its --max-stale, in ms of the service's clock);
   * null: none recorded. Readers say a table stale by it (staleness).
   */
  maxStaleMs: number | null;
}

/** Where a verification of --follow stands: saved with each page it applies, so it continues after a stop. */
export interface VerifyState {
  /** The `nextCursor` after the last page applied. */
  cursor: string;
  /** The Date of its first page (the service's clock): the table's verified_at once it ends. */
  startedAt: string | null;
  /** Creation time of the oldest row of the last page applied; rows at it may continue on the next page. */
  edge: string;
  /** The IDs of the rows at `edge` seen so far (not gone, whatever the next page shows). */
  edgeIds: string[];
}

const COLUMNS = [
  'table_id',
  'name',
  'workspace_id',
  'workspace_name',
  'mirror_table',
  'header',
  'newest_created_at',
  'pending_since',
  'watermark',
  'row_count',
  'service_row_count',
  'last_sync_at',
  'pass_mode',
  'pass_cursor',
  'pass_started_at',
  'pass_top',
  'pass_oldest',
  'pass_requests',
  'pass_rows',
  'pass_inserted',
  'pass_updated',
  'pass_unfit',
  'history_table',
  'at_sync_macro',
  'at_macro',
  'verified_at',
  'verify_pass',
  'max_stale',
] as const;

const iso = (value: unknown): string | null =>
  value === null || value === undefined ? null : new Date(value as string | number | Date).toISOString();
const text = (value: unknown): string | null => (value === null || value === undefined ? null : String(value));
const num = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));

/**
 * The mirror's tables `ref` names, as the service's are named (see pickTable): a table ID; else its
 * service name or mirror table name (`leads`) as written, or else ignoring case. Several: ambiguous.
 */
export function namedStates<T extends { state: TableState }>(items: readonly T[], ref: string): T[] {
  const byId = items.filter(({ state }) => state.tableId === ref);
  if (byId.length > 0) return byId;
  return matchName(items, ref, ({ state }, name, folding = same) => folding(state.name) === name || folding(state.mirrorTable) === name);
}

const same = (text: string): string => text;

export async function loadStates(connection: DuckDBConnection): Promise<TableState[]> {
  // a mirror of format 2 made before verifications (read-only: nothing adds the columns) has none yet
  const have = await connection.runAndReadAll(
    "SELECT column_name FROM duckdb_columns() WHERE table_name = '_tds_tables' AND schema_name = 'main' AND database_name = current_database()",
  );
  const present = new Set(have.getRowObjectsJS().map((row) => String(row.column_name)));
  const select = COLUMNS.map((column) =>
    !present.has(column) ? `NULL AS ${column}` : column === 'max_stale' ? 'epoch_ms(max_stale) AS max_stale' : column,
  );
  const reader = await connection.runAndReadAll(`SELECT ${select.join(', ')} FROM _tds_tables ORDER BY mirror_table`);
  return reader.getRowObjectsJS().map((row) => ({
    tableId: String(row.table_id),
    name: String(row.name),
    workspaceId: String(row.workspace_id ?? ''),
    workspaceName: String(row.workspace_name ?? ''),
    mirrorTable: String(row.mirror_table),
    header: String(row.header) as HeaderMode,
    newestCreatedAt: iso(row.newest_created_at),
    pendingSince: iso(row.pending_since),
    watermark: iso(row.watermark),
    rowCount: num(row.row_count),
    serviceRowCount: num(row.service_row_count),
    lastSyncAt: iso(row.last_sync_at),
    pass:
      row.pass_mode === null
        ? null
        : {
            mode: String(row.pass_mode) as PassState['mode'],
            cursor: row.pass_cursor === null ? null : String(row.pass_cursor),
            startedAt: iso(row.pass_started_at),
            top: iso(row.pass_top),
            oldest: iso(row.pass_oldest),
            requests: num(row.pass_requests) ?? 0,
            rows: num(row.pass_rows) ?? 0,
            inserted: num(row.pass_inserted) ?? 0,
            updated: num(row.pass_updated) ?? 0,
            unfit: num(row.pass_unfit) ?? 0,
          },
    historyTable: text(row.history_table),
    atSyncMacro: text(row.at_sync_macro),
    atMacro: text(row.at_macro),
    verifiedAt: iso(row.verified_at),
    verify: row.verify_pass === null || row.verify_pass === undefined ? null : (JSON.parse(String(row.verify_pass)) as VerifyState),
    maxStaleMs: num(row.max_stale),
  }));
}

/** Writes the table's row of _tds_tables (inside the caller's transaction). */
export async function saveState(connection: DuckDBConnection, state: TableState): Promise<void> {
  const { pass } = state;
  const values = [
    state.tableId,
    state.name,
    state.workspaceId,
    state.workspaceName,
    state.mirrorTable,
    state.header,
    state.newestCreatedAt,
    state.pendingSince,
    state.watermark,
    state.rowCount,
    state.serviceRowCount,
    state.lastSyncAt,
    pass?.mode ?? null,
    pass?.cursor ?? null,
    pass?.startedAt ?? null,
    pass?.top ?? null,
    pass?.oldest ?? null,
    pass?.requests ?? null,
    pass?.rows ?? null,
    pass?.inserted ?? null,
    pass?.updated ?? null,
    pass?.unfit ?? null,
    state.historyTable,
    state.atSyncMacro,
    state.atMacro,
    state.verifiedAt,
    state.verify === null ? null : JSON.stringify(state.verify),
    state.maxStaleMs,
  ];
  const casts = COLUMNS.map((column, i) =>
    column === 'max_stale'
      ? `to_milliseconds($${i + 1}::DOUBLE)`
      : /_at$|_since$|watermark|pass_top|pass_oldest/.test(column)
        ? `$${i + 1}::TIMESTAMPTZ`
        : `$${i + 1}`,
  );
  await connection.run('DELETE FROM _tds_tables WHERE table_id = $1', [state.tableId]);
  await connection.run(`INSERT INTO _tds_tables (${COLUMNS.join(', ')}) VALUES (${casts.join(', ')})`, values);
}

/** A table's verification against its recorded bound at a moment: what every reader of `verified_at` shows beside it. */
export interface Staleness {
  /** The recorded bound (ms of the service's clock); null: none. */
  maxStaleMs: number | null;
  /** The last complete pass began longer ago than the bound. */
  stale: boolean;
  /** How long past the bound it is (ms); null when not stale. */
  staleForMs: number | null;
}

/** The table's staleness at `now` (ms of the service's clock): a table never verified, or without a bound, is not called stale. */
export function staleness(state: Pick<TableState, 'verifiedAt' | 'maxStaleMs'>, now: number): Staleness {
  const { verifiedAt, maxStaleMs } = state;
  if (verifiedAt === null || maxStaleMs === null) return { maxStaleMs, stale: false, staleForMs: null };
  const past = now - Date.parse(verifiedAt) - maxStaleMs;
  return { maxStaleMs, stale: past > 0, staleForMs: past > 0 ? past : null };
}

/** Staleness as JSON outputs give it beside `verifiedAt` (seconds): `maxStale`, `stale`, `staleFor`. */
export function staleFields(state: Pick<TableState, 'verifiedAt' | 'maxStaleMs'>, now: number): StaleFields {
  const { maxStaleMs, stale, staleForMs } = staleness(state, now);
  const seconds = (ms: number | null): number | null => (ms === null ? null : Math.round(ms / 100) / 10);
  return { maxStale: seconds(maxStaleMs), stale, staleFor: seconds(staleForMs) };
}

export interface StaleFields {
  /** The recorded bound in seconds; null: none. */
  maxStale: number | null;
  stale: boolean;
  /** Seconds past the bound; null when not stale. */
  staleFor: number | null;
}

/** `3 h 20 min`, `45 min`, `12 s`. */
export function formatAge(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 120) return `${s} s`;
  const min = Math.round(s / 60);
  if (min < 120) return `${min} min`;
  const h = Math.floor(min / 60);
  return h < 48 ? `${h} h ${min % 60} min` : `${Math.round(h / 24)} days`;
}

/** `stale: 6 min past its bound of 2 min`, or '' when not stale: what the terminal outputs add beside verified_at. */
export function staleText(fields: StaleFields): string {
  if (!fields.stale) return '';
  return `stale: ${formatAge((fields.staleFor ?? 0) * 1000)} past its bound of ${formatAge((fields.maxStale ?? 0) * 1000)}`;
}
