import type { DuckDBConnection } from '@duckdb/node-api';
import { quoteIdent, quoteLiteral } from '../../duckdb/index.js';
import type { PassMode } from '../table-state.js';

// Beside each mirror table T: T__history (every version the mirror held and replaced or deleted: T's
// columns and _replacedBy, _change, _replacedAt) and two table macros that give T as it was,
// T_at_sync(N) and T_at(MOMENT). Their names are kept in _tds_tables.

/** The column of every mirror row: the sync that wrote its version. */
export const SYNC_ID_KEY = '_syncId';
/** The columns a version gets in T__history. */
export const REPLACED_BY_KEY = '_replacedBy';
export const CHANGE_KEY = '_change';
export const REPLACED_AT_KEY = '_replacedAt';
/** Keys no field may take in a mirror table (the history's own columns). */
export const HISTORY_KEYS = [SYNC_ID_KEY, REPLACED_BY_KEY, CHANGE_KEY, REPLACED_AT_KEY] as const;

/** The objects beside one mirror table. */
export interface HistoryNames {
  historyTable: string;
  atSyncMacro: string;
  atMacro: string;
}

/**
 * `leads__history`, `leads_at_sync`, `leads_at`; a name that another object holds (`taken`, lower
 * case: DuckDB's names ignore case) gets `_2`, `_3`, …. The names chosen are added to `taken`.
 */
export function historyNames(mirrorTable: string, taken: Set<string>): HistoryNames {
  const free = (base: string): string => {
    let name = base;
    for (let n = 2; taken.has(name.toLowerCase()); n += 1) name = `${base}_${n}`;
    taken.add(name.toLowerCase());
    return name;
  };
  return { historyTable: free(`${mirrorTable}__history`), atSyncMacro: free(`${mirrorTable}_at_sync`), atMacro: free(`${mirrorTable}_at`) };
}

/** A table's columns, in order, with their SQL types (within the caller's transaction). */
export async function tableColumns(connection: DuckDBConnection, table: string): Promise<Array<{ key: string; type: string }>> {
  const reader = await connection.runAndReadAll(
    "SELECT column_name, data_type FROM duckdb_columns() WHERE database_name = current_database() AND schema_name = 'main' " +
      `AND table_name = ${quoteLiteral(table)} ORDER BY column_index`,
  );
  return reader.getRowObjectsJS().map((row) => ({ key: String(row.column_name), type: String(row.data_type) }));
}

/** T__history, empty, with T's columns as they are now and the three of a replaced version. */
export async function createHistoryTable(connection: DuckDBConnection, mirrorTable: string, names: HistoryNames): Promise<void> {
  await connection.run(
    `CREATE TABLE ${quoteIdent(names.historyTable)} AS SELECT *, NULL::BIGINT AS ${quoteIdent(REPLACED_BY_KEY)}, ` +
      `NULL::VARCHAR AS ${quoteIdent(CHANGE_KEY)}, NULL::TIMESTAMPTZ AS ${quoteIdent(REPLACED_AT_KEY)} ` +
      `FROM ${quoteIdent(mirrorTable)} LIMIT 0`,
  );
}

/**
 * The two macros, made again with T's columns as they are now (so they follow its drift):
 * T_at_sync(N), the versions with _syncId <= N not replaced by N; T_at(MOMENT), the versions with
 * _updatedAt <= MOMENT not replaced by then (a deletion from the start of the pass that found it). A
 * history pruned (see HistoryHorizon) makes a moment before what it still knows an error. `versions`:
 * the columns and how a version's value is read (retyped-columns.ts: versionColumns).
 */
export async function createMacros(
  connection: DuckDBConnection,
  mirrorTable: string,
  names: HistoryNames,
  versions: ReadonlyArray<{ key: string; sql: string }>,
): Promise<void> {
  const columns = versions.map((column) => `${column.sql} AS ${quoteIdent(column.key)}`).join(', ');
  const current = quoteIdent(mirrorTable);
  const history = quoteIdent(names.historyTable);
  const syncId = quoteIdent(SYNC_ID_KEY);
  const replacedBy = quoteIdent(REPLACED_BY_KEY);
  const updatedAt = quoteIdent('_updatedAt');
  const replacedAt = quoteIdent(REPLACED_AT_KEY);
  // parameters shadow columns of their name inside a macro: names no column key is likely to have
  const n = 'tds_sync_id';
  const moment = 'CAST(tds_moment AS TIMESTAMPTZ)';
  const horizon = await historyHorizon(connection, mirrorTable);
  const message = (asked: string, known: string): string =>
    `${quoteLiteral(`${mirrorTable}: `)} || ${asked} || ${quoteLiteral(` is before what its history still knows (--prune-history dropped older versions): it answers from ${known} on`)}`;
  // DuckDB raises error() when a row reaches it: one row of the table (or its history) does
  const refuse = (before: string, asked: string, known: string): string =>
    horizon
      ? ` UNION ALL SELECT ${columns} FROM (SELECT * FROM ${current} LIMIT 1) WHERE ${before} AND error(${message(asked, known)}) IS NULL` +
        ` UNION ALL SELECT ${columns} FROM (SELECT * FROM ${history} LIMIT 1) WHERE ${before} AND error(${quoteLiteral(`${mirrorTable}: `)} || ${asked} || ${quoteLiteral(
          ` is before what its history still knows (--prune-history dropped older versions): it answers from ${known} on`,
        )}) IS NULL`
      : '';
  await connection.run(
    `CREATE OR REPLACE MACRO ${quoteIdent(names.atSyncMacro)}(${n}) AS TABLE ` +
      `SELECT ${columns} FROM ${current} WHERE ${syncId} <= ${n} ` +
      `UNION ALL SELECT ${columns} FROM ${history} WHERE ${syncId} <= ${n} AND ${replacedBy} > ${n}` +
      refuse(`${n} < ${horizon?.fromSync}`, `'sync ' || ${n}`, `sync ${horizon?.fromSync}`),
  );
  await connection.run(
    `CREATE OR REPLACE MACRO ${quoteIdent(names.atMacro)}(tds_moment) AS TABLE ` +
      `SELECT ${columns} FROM ${current} WHERE ${updatedAt} <= ${moment} ` +
      `UNION ALL SELECT ${columns} FROM ${history} WHERE ${updatedAt} <= ${moment} AND ${replacedAt} > ${moment}` +
      refuse(`${moment} < ${quoteLiteral(horizon?.from ?? '')}::TIMESTAMPTZ`, `CAST(${moment} AS VARCHAR)`, horizon?.from ?? ''),
  );
}

/** The earliest moment (the service's clock) and sync a table's history answers for, after pruning (pruneHistory in sync-table.ts). */
export interface HistoryHorizon {
  from: string;
  fromSync: number;
}

/** The table's horizon (found by the mirror table's name); undefined when its history was never pruned. */
export async function historyHorizon(connection: DuckDBConnection, mirrorTable: string): Promise<HistoryHorizon | undefined> {
  if (!(await hasTable(connection, '_tds_pruned'))) return undefined;
  const reader = await connection.runAndReadAll(
    'SELECT p.known_from, p.known_from_sync FROM _tds_pruned p JOIN _tds_tables t USING (table_id) WHERE t.mirror_table = $1',
    [mirrorTable],
  );
  const row = reader.getRowObjectsJS()[0];
  return row ? { from: new Date(row.known_from as Date).toISOString(), fromSync: Number(row.known_from_sync) } : undefined;
}

/** Whether the mirror has a table of this name (a table tds adds when first needed). */
export async function hasTable(connection: DuckDBConnection, name: string): Promise<boolean> {
  const reader = await connection.runAndReadAll(
    "SELECT count(*) AS n FROM duckdb_tables() WHERE database_name = current_database() AND schema_name = 'main' AND table_name = $1",
    [name],
  );
  return Number(reader.getRowObjectsJS()[0]?.n ?? 0) > 0;
}

// A table's row of _tds_syncs: written when its sync begins (so the sync has its ID before it writes a
// version, and a sync killed midway is still listed, with no end), completed when it ends.

/** A verification is a page of --follow's re-reading (follow-verify.ts). */
export type SyncMode = PassMode | 'verify';

export interface SyncBegun {
  tableId: string;
  mirrorTable: string;
  /** When the sync began (this machine's clock: the record of when it ran). */
  startedAt: string;
  mode: SyncMode;
}

export interface SyncEnded {
  mode: SyncMode;
  complete: boolean;
  requests: number;
  rowsRead: number;
  inserted: number;
  updated: number;
  deleted: number;
  unfit: number;
  /** Versions dropped by --prune-history (null: not asked). */
  pruned: number | null;
}

/** The next sync ID (unique and increasing across the mirror's tables), its row written. */
export async function beginSync(connection: DuckDBConnection, sync: SyncBegun): Promise<number> {
  const reader = await connection.runAndReadAll('SELECT coalesce(max(sync_id), 0)::BIGINT + 1 AS id FROM _tds_syncs');
  const syncId = Number(reader.getRowObjectsJS()[0]!.id);
  await connection.run(
    'INSERT INTO _tds_syncs (sync_id, table_id, mirror_table, started_at, mode, complete) VALUES ($1, $2, $3, $4::TIMESTAMPTZ, $5, false)',
    [syncId, sync.tableId, sync.mirrorTable, sync.startedAt, sync.mode],
  );
  return syncId;
}

/**
 * The sync's row completed. `serviceNow`: now on the service's clock (ms; its Date header is to the
 * second), undefined before any answer. ended_at is this machine's clock (the record of when it ran);
 * service_ended_at is the latest the sync's end can be on the service's clock, which the history's
 * moments are on: a diff judges the first moment the mirror answers for by it.
 */
export async function endSync(
  connection: DuckDBConnection,
  syncId: number,
  sync: SyncEnded,
  serviceNow: number | undefined,
): Promise<void> {
  const serviceEndedAt = new Date((serviceNow ?? Date.now()) + DATE_HEADER_RESOLUTION_MS).toISOString();
  await connection.run(
    'UPDATE _tds_syncs SET ended_at = now(), service_ended_at = $11::TIMESTAMPTZ, mode = $2, complete = $3, requests = $4, ' +
      'rows_read = $5, inserted = $6, updated = $7, deleted = $8, unfit = $9, pruned = $10 WHERE sync_id = $1',
    [
      syncId,
      sync.mode,
      sync.complete,
      sync.requests,
      sync.rowsRead,
      sync.inserted,
      sync.updated,
      sync.deleted,
      sync.unfit,
      sync.pruned,
      serviceEndedAt,
    ],
  );
}

const DATE_HEADER_RESOLUTION_MS = 1000;
