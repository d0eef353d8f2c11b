// What the mirror holds, as the tools read it: its tables (_tds_tables, _tds_columns), a table found by the
// reference an agent gives (an ID, a service or mirror table name), and the service's table it means. Loaded
// by a tool's first call that reads the mirror: the server answers `initialize` without the mirror's code.

import { stat } from 'node:fs/promises';
import type { DuckDBConnection } from '@duckdb/node-api';
import { TdsError, UsageError } from '../core/index.js';
import { loadStates, namedStates, type TableState } from '../mirror/index.js';
import { pickTable } from '../records/index.js';
import type { Table } from '../service/index.js';
import type { Session } from './session.js';

/** A table of the mirror, as _tds_tables and _tds_columns describe it. */
export interface MirrorTable {
  state: TableState;
  /** fields the mirror has a column for (removed ones not counted) */
  columns: number;
}

/** What the mirror holds; `note` says why it is empty when it could not be read (no file yet, a sync running). */
export interface MirrorCatalog {
  tables: MirrorTable[];
  note?: string;
}

/** The mirror's tables; none (with a note) when there is no mirror file yet or this server is syncing it. */
export async function readCatalog(session: Session): Promise<MirrorCatalog> {
  const { mirror } = session;
  if (!(await stat(mirror.path).catch(() => undefined))) {
    return { tables: [], note: `there is no mirror at ${mirror.path} yet: sync_tables makes it` };
  }
  if (mirror.syncing)
    return { tables: [], note: `the mirror ${mirror.path} is being synced by this server: its tables show once the sync ends` };
  return mirror.read(async (db) => {
    if (!(await hasCatalog(db.connection))) return { tables: [], note: `${mirror.path} holds no tables synced by tds` };
    const states = await loadStates(db.connection);
    const reader = await db.connection.runAndReadAll(
      'SELECT table_id, count(*) AS n FROM _tds_columns WHERE NOT removed GROUP BY table_id',
    );
    const counts = new Map(reader.getRowObjectsJS().map((row) => [String(row.table_id), Number(row.n)]));
    return { tables: states.map((state) => ({ state, columns: counts.get(state.tableId) ?? 0 })) };
  });
}

async function hasCatalog(connection: DuckDBConnection): Promise<boolean> {
  const reader = await connection.runAndReadAll(
    "SELECT 1 FROM duckdb_tables() WHERE table_name = '_tds_tables' AND schema_name = 'main' AND database_name = current_database()",
  );
  return reader.getRowObjectsJS().length > 0;
}

/**
 * The mirror table a reference names: a table ID, or a service or mirror table name (`leads`), exact
 * or else ignoring case; undefined when none. A name several tables share is an error listing them.
 */
export function findMirrorTable(tables: readonly MirrorTable[], ref: string): MirrorTable | undefined {
  const named = namedStates(tables, ref);
  if (named.length > 1) {
    const list = named.map(({ state }) => `${state.tableId} (mirror table ${state.mirrorTable})`).join(', ');
    throw new UsageError(`table name "${ref}" matches ${named.length} mirrored tables: ${list}`, {
      hint: 'give the table ID or the mirror table name instead',
    });
  }
  return named[0];
}

/** The mirror table a reference names, or NOT_FOUND saying what the mirror has. */
export function requireMirrorTable(catalog: MirrorCatalog, ref: string): MirrorTable {
  const found = findMirrorTable(catalog.tables, ref);
  if (found) return found;
  const known = catalog.tables.map(({ state }) => `${state.mirrorTable} ("${state.name}")`).join(', ');
  throw new TdsError('NOT_FOUND', `no table "${ref}" in the mirror ${catalog.note ? `(${catalog.note})` : ''}`.trimEnd(), {
    hint: known ? `the mirror has ${known}; sync_tables adds a table` : 'sync_tables mirrors a table first',
  });
}

/**
 * The service's table a reference names: its ID or exact name (as on the command line), or else the
 * name of its mirror table (`leads`), which an agent reads in query_sql and list_tables.
 */
export async function serviceTable(session: Session, tables: Table[], ref: string): Promise<Table> {
  try {
    return pickTable(tables, ref);
  } catch (error) {
    if (!(error instanceof TdsError) || error.code !== 'NOT_FOUND') throw error;
    const catalog = await readCatalog(session).catch(() => undefined);
    const mirrored = catalog && findMirrorTable(catalog.tables, ref);
    if (!mirrored) throw error;
    return pickTable(tables, mirrored.state.tableId);
  }
}
