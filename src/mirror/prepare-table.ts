import type { DuckDBConnection } from '@duckdb/node-api';
import { UsageError } from '../core/errors.js';
import type { Database } from '../duckdb/engine.js';
import type { HeaderMode } from '../records/shape-options.js';
import type { Field, Table } from '../service/index.js';
import { applySchema, createTableSql, loadFields, saveFields } from './apply-schema.js';
import { createHistoryTable, createMacros, historyNames, SYNC_ID_KEY, type HistoryNames } from './history/history-objects.js';
import { archiveKeyOf, lastSyncId, loadArchives, saveArchive, versionColumns, type ArchivedColumn } from './history/retyped-columns.js';
import { checkFieldIds, planSchema, sqlTypeOf, type SchemaPlan, type StoredField } from './schema-drift.js';
import { mirrorTableName } from './table-name.js';
import { newPass } from './pass.js';
import { saveState, type TableState } from './table-state.js';

export interface PrepareOptions {
  db: Database;
  /** --header; undefined: the table's own, or labels for a new one */
  header?: HeaderMode;
  /** names in use (this run adds the names it gives) */
  taken: Set<string>;
  /** lines for stderr (schema changes) */
  say(line: string): void;
}

export interface PreparedTable {
  plan: SchemaPlan;
  current: TableState;
}

/**
 * The table created (with its history table and macros), or its columns changed to the service's
 * schema (the history table's alike, the macros made again), in one transaction with its state.
 */
export async function prepareTable(
  table: Table,
  state: TableState | undefined,
  fields: readonly Field[],
  options: PrepareOptions,
): Promise<PreparedTable> {
  const { connection } = options.db;
  if (state && options.header && state.header !== options.header) {
    throw new UsageError(`the mirror table ${state.mirrorTable} has keys by ${state.header}, not by ${options.header}`, {
      hint: `leave out --header (or give --header ${state.header}), or sync into another --db`,
    });
  }
  checkFieldIds(table.name, fields);
  const header = state?.header ?? options.header ?? 'label';
  const stored = state ? await loadFields(connection, table.id) : [];
  const archived = state ? await loadArchives(connection, table.id) : [];
  const plan = planSchema(
    stored,
    fields,
    header,
    archived.map((archive) => archive.archiveKey),
  );
  const current: PreparedTable['current'] = {
    ...(state ?? newState(table, options)),
    name: table.name,
    workspaceId: table.workspaceId,
    workspaceName: table.workspaceName,
  };
  await connection.run('BEGIN TRANSACTION');
  try {
    const names = historyOf(current);
    let lines: string[] = [];
    if (!state) {
      await connection.run(createTableSql(current.mirrorTable, plan.columns, [{ key: SYNC_ID_KEY, type: 'BIGINT' }]));
      await createHistoryTable(connection, current.mirrorTable, names);
    } else if (plan.changes.length > 0) {
      const archives = await archiveRetyped(connection, stored, plan);
      lines = await applySchema(connection, current.mirrorTable, stored, plan);
      await applySchema(connection, names.historyTable, stored, plan);
      for (const archive of archives) await saveArchive(connection, table.id, archive);
    }
    await saveFields(connection, table.id, plan.fields);
    if (!state || plan.changes.length > 0)
      await createMacros(connection, current.mirrorTable, names, await versionColumns(connection, current.mirrorTable));
    // a cast is not the service's value in the new type (a number 1 cast to text is "1.0"): a full
    // pass, saved with the change, writes every row again as the service gives it
    if (plan.changes.some((change) => change.kind === 'retyped')) current.pass = newPass('full');
    await saveState(connection, current);
    await connection.run('COMMIT');
    for (const line of lines) options.say(`${current.mirrorTable}: ${line}`);
  } catch (error) {
    await connection.run('ROLLBACK').catch(() => undefined);
    throw error;
  }
  return { plan, current };
}

/** Each retype that changes a column's type keeps the column as it was: its archive, for the versions written so far. */
async function archiveRetyped(connection: DuckDBConnection, stored: readonly StoredField[], plan: SchemaPlan): Promise<ArchivedColumn[]> {
  const throughSync = await lastSyncId(connection);
  const archives: ArchivedColumn[] = [];
  for (const change of plan.changes) {
    if (change.kind !== 'retyped') continue;
    const before = stored.find((field) => field.fieldId === change.field.fieldId)!;
    if (sqlTypeOf(before) === sqlTypeOf(change.field)) continue;
    change.archive = {
      fieldId: change.field.fieldId,
      archiveKey: archiveKeyOf(change.field.key, sqlTypeOf(before), throughSync),
      archiveType: sqlTypeOf(before),
      throughSync,
    };
    archives.push(change.archive);
  }
  return archives;
}

function newState(table: Table, options: PrepareOptions): TableState {
  const mirrorTable = mirrorTableName(table, options.taken);
  options.taken.add(mirrorTable);
  return {
    ...historyNames(mirrorTable, options.taken),
    tableId: table.id,
    name: table.name,
    workspaceId: table.workspaceId,
    workspaceName: table.workspaceName,
    mirrorTable,
    header: options.header ?? 'label',
    newestCreatedAt: null,
    pendingSince: null,
    watermark: null,
    rowCount: null,
    serviceRowCount: null,
    lastSyncAt: null,
    verifiedAt: null,
    verify: null,
    pass: null,
  };
}

/** The table's history objects (a mirror of format 2 has them for every table). */
function historyOf(state: TableState): HistoryNames {
  const { historyTable, atSyncMacro, atMacro } = state;
  if (!historyTable || !atSyncMacro || !atMacro)
    throw new Error(`the mirror table ${state.mirrorTable} has no history table in _tds_tables`);
  return { historyTable, atSyncMacro, atMacro };
}
