import type { DuckDBConnection } from '@duckdb/node-api';
import { UsageError } from '../core/index.js';
import { type Database, quoteIdent, quoteLiteral, renameListItems } from '../duckdb/index.js';
import { TRUNCATED_KEY, type HeaderMode, type TypedColumn, type SqlType } from '../records/index.js';
import type { Field, Table } from '../service/index.js';
import { createHistoryTable, createMacros, historyNames, SYNC_ID_KEY, tableColumns, type HistoryNames } from './history/history-objects.js';
import {
  archiveKeyOf,
  convertExpression,
  lastSyncId,
  loadArchives,
  saveArchive,
  versionColumns,
  type ArchivedColumn,
} from './history/retyped-columns.js';
import { newPass } from './pass.js';
import {
  checkFieldIds,
  describeChange,
  planSchema,
  sqlTypeOf,
  type SchemaChange,
  type SchemaPlan,
  type StoredField,
} from './schema-drift.js';
import { mirrorTableName } from './table-name.js';
import { COMPLETE_PASS, saveState, type TableState } from './table-state.js';

// A mirror table's schema: made, or changed to the service's (prepareTable, with its history table and
// macros and its state, in one transaction); the changes themselves and _tds_columns written to match
// (applySchema and the functions after it, inside the caller's transaction).

/** CREATE TABLE for a new mirror table with these columns (`_id` its primary key), and `extra` ones after them. */
export function createTableSql(
  table: string,
  columns: readonly TypedColumn[],
  extra: ReadonlyArray<{ key: string; type: string }> = [],
): string {
  const list = [
    ...columns.map((column) => `${quoteIdent(column.key)} ${column.type}${column.role === 'id' ? ' PRIMARY KEY' : ''}`),
    ...extra.map((column) => `${quoteIdent(column.key)} ${column.type}`),
  ];
  return `CREATE TABLE ${quoteIdent(table)} (${list.join(', ')})`;
}

/**
 * Applies the changes to the tables (a mirror table and its history) and returns one line per change
 * (with what a retype lost in the first table). Every ALTER of every table comes before any UPDATE: in
 * one DuckDB transaction, a table altered after it was updated cannot be committed ("another
 * transaction has altered this table"), so a retype with any other change wedged the mirror (issue 41).
 */
export async function applySchema(
  connection: DuckDBConnection,
  tables: readonly string[],
  before: readonly StoredField[],
  plan: SchemaPlan,
): Promise<string[]> {
  const previous = new Map(before.map((field) => [field.fieldId, field]));
  const conversions = new Map<string, Conversion[]>();
  for (const table of tables) {
    await renameColumns(connection, table, plan.changes);
    const converted: Conversion[] = [];
    for (const change of plan.changes) {
      if (change.kind === 'added') await addColumns(connection, table, change.field);
      if (change.kind === 'retyped') {
        const conversion = await retypeColumns(connection, table, previous.get(change.field.fieldId)!, change);
        if (conversion) converted.push(conversion);
      }
    }
    conversions.set(table, converted);
  }
  const lost = new Map<RetypedChange, number>();
  for (const [i, table] of tables.entries()) {
    await renameTruncatedKeys(connection, table, plan.changes);
    const counts = await convert(connection, table, conversions.get(table)!);
    if (i === 0) for (const [change, count] of counts) lost.set(change, count);
  }
  return plan.changes.map((change) => {
    const line = describeChange(change);
    const count = change.kind === 'retyped' ? lost.get(change) : undefined;
    return change.kind === 'retyped' && count !== undefined ? line + retypeNote(change, count) : line;
  });
}

/** Renames in two steps (through temporary names), so that keys may trade places (A → B while B → A). */
async function renameColumns(connection: DuckDBConnection, table: string, changes: readonly SchemaChange[]): Promise<void> {
  const renames: Array<[from: string, to: string]> = [];
  for (const change of changes) {
    if (change.kind !== 'renamed') continue;
    renames.push([change.from.key, change.field.key]);
    if (change.from.statusKey && change.field.statusKey) renames.push([change.from.statusKey, change.field.statusKey]);
    if (change.from.errorKey && change.field.errorKey) renames.push([change.from.errorKey, change.field.errorKey]);
  }
  const alter = `ALTER TABLE ${quoteIdent(table)} RENAME COLUMN`;
  for (const [i, [from]] of renames.entries()) await connection.run(`${alter} ${quoteIdent(from)} TO ${quoteIdent(`_tds_rename_${i}`)}`);
  for (const [i, [, to]] of renames.entries()) await connection.run(`${alter} ${quoteIdent(`_tds_rename_${i}`)} TO ${quoteIdent(to)}`);
}

/**
 * `_truncated` names the keys of the cut values by the columns' names: a renamed value column is named
 * anew in every version that names it (seed 5017 of the simulator: a lake compared after a relabel).
 */
async function renameTruncatedKeys(connection: DuckDBConnection, table: string, changes: readonly SchemaChange[]): Promise<void> {
  const renames = changes.flatMap((change) => (change.kind === 'renamed' ? [[change.from.key, change.field.key] as const] : []));
  if (renames.length === 0 || !(await tableColumns(connection, table)).some((column) => column.key === TRUNCATED_KEY)) return;
  const truncated = quoteIdent(TRUNCATED_KEY);
  await connection.run(
    `UPDATE ${quoteIdent(table)} SET ${truncated} = ${renameListItems(truncated, renames)} ` +
      `WHERE list_has_any(${truncated}, [${renames.map(([from]) => quoteLiteral(from)).join(', ')}])`,
  );
}

async function addColumns(connection: DuckDBConnection, table: string, field: StoredField): Promise<void> {
  const add = (key: string, type: SqlType): Promise<unknown> =>
    connection.run(`ALTER TABLE ${quoteIdent(table)} ADD COLUMN ${quoteIdent(key)} ${type}`);
  await add(field.key, sqlTypeOf(field));
  if (field.statusKey) await add(field.statusKey, 'VARCHAR');
  if (field.errorKey) await add(field.errorKey, 'VARCHAR');
}

/** A retyped column's values to convert from the column kept under its archive key into the new one. */
interface Conversion {
  change: RetypedChange;
  column: string;
  kept: string;
  from: SqlType;
  to: SqlType;
}

/**
 * A retyped field's columns altered: the column as it was kept under its archive key (its values are
 * the versions' own, see history/retyped-columns.ts) and a new one of the new type added, to be filled
 * where the values convert (convert: the others are NULL and counted; the full pass that follows
 * writes the service's); status and error columns added or dropped.
 */
async function retypeColumns(
  connection: DuckDBConnection,
  table: string,
  before: StoredField,
  change: RetypedChange,
): Promise<Conversion | undefined> {
  const after = change.field;
  const from = sqlTypeOf(before);
  const to = sqlTypeOf(after);
  const target = quoteIdent(table);
  let conversion: Conversion | undefined;
  if (from !== to && change.archive) {
    const column = quoteIdent(after.key);
    const kept = quoteIdent(change.archive.archiveKey);
    await connection.run(`ALTER TABLE ${target} RENAME COLUMN ${column} TO ${kept}`);
    await connection.run(`ALTER TABLE ${target} ADD COLUMN ${column} ${to}`);
    conversion = { change, column, kept, from, to };
  }
  // a field that starts or stops running an action gains or loses its status and error columns
  for (const [was, now] of [
    [before.statusKey, after.statusKey],
    [before.errorKey, after.errorKey],
  ] as const) {
    if (was && !now) await connection.run(`ALTER TABLE ${target} DROP COLUMN ${quoteIdent(was)}`);
    if (!was && now) await connection.run(`ALTER TABLE ${target} ADD COLUMN ${quoteIdent(now)} VARCHAR`);
  }
  return conversion;
}

/** The retyped columns of a table filled in one UPDATE, after every ALTER; the values each lost. */
async function convert(
  connection: DuckDBConnection,
  table: string,
  conversions: readonly Conversion[],
): Promise<Map<RetypedChange, number>> {
  const lost = new Map<RetypedChange, number>();
  if (conversions.length === 0) return lost;
  const target = quoteIdent(table);
  const sets = conversions.map(({ column, kept, from, to }) => `${column} = ${convertExpression(kept, from, to)}`);
  await connection.run(`UPDATE ${target} SET ${sets.join(', ')}`);
  const counts = conversions.map(
    ({ column, kept }, i) => `count(*) FILTER (WHERE ${kept} IS NOT NULL AND ${column} IS NULL)::INTEGER AS ${quoteIdent(`lost${i}`)}`,
  );
  const row = (await connection.runAndReadAll(`SELECT ${counts.join(', ')} FROM ${target}`)).getRowObjectsJS()[0] ?? {};
  conversions.forEach(({ change }, i) => lost.set(change, Number(row[`lost${i}`] ?? 0)));
  return lost;
}

/** What a retype that changed the column's type says after its line. */
function retypeNote(change: RetypedChange, lost: number): string {
  const kept = JSON.stringify(change.archive!.archiveKey);
  return lost > 0
    ? `: converted; ${lost} ${lost === 1 ? 'value that does not fit is' : 'values that do not fit are'} NULL now (the column as it was is kept as ${kept})`
    : `: converted (the column as it was is kept as ${kept})`;
}

type RetypedChange = Extract<SchemaChange, { kind: 'retyped' }>;

/** Replaces the table's rows of _tds_columns with `fields`. */
export async function saveFields(connection: DuckDBConnection, tableId: string, fields: readonly StoredField[]): Promise<void> {
  await connection.run(`DELETE FROM _tds_columns WHERE table_id = ${quoteLiteral(tableId)}`);
  for (const field of fields) {
    await connection.run(
      'INSERT INTO _tds_columns (table_id, field_id, position, key, status_key, error_key, label, name, type, options, is_system, removed) ' +
        'VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::JSON, $11, $12)',
      [
        tableId,
        field.fieldId,
        field.position,
        field.key,
        field.statusKey,
        field.errorKey,
        field.label,
        field.name,
        field.type,
        JSON.stringify(field.options),
        field.isSystem,
        field.removed,
      ],
    );
  }
}

/** The table's fields as the mirror last saw them, in schema order. */
export async function loadFields(connection: DuckDBConnection, tableId: string): Promise<StoredField[]> {
  const reader = await connection.runAndReadAll(
    'SELECT field_id, position, key, status_key, error_key, label, name, type, CAST(options AS VARCHAR) AS options, is_system, removed ' +
      'FROM _tds_columns WHERE table_id = $1 ORDER BY position',
    [tableId],
  );
  return reader.getRowObjectsJS().map((row) => ({
    fieldId: String(row.field_id),
    position: Number(row.position),
    key: String(row.key),
    statusKey: row.status_key === null ? null : String(row.status_key),
    errorKey: row.error_key === null ? null : String(row.error_key),
    label: String(row.label),
    name: String(row.name),
    type: String(row.type) as StoredField['type'],
    options: JSON.parse(String(row.options ?? 'null')) as StoredField['options'],
    isSystem: Boolean(row.is_system),
    removed: Boolean(row.removed),
  }));
}

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
      lines = await applySchema(connection, [current.mirrorTable, names.historyTable], stored, plan);
      for (const archive of archives) await saveArchive(connection, table.id, archive);
    }
    await saveFields(connection, table.id, plan.fields);
    if (!state || plan.changes.length > 0)
      await createMacros(connection, current.mirrorTable, names, await versionColumns(connection, current.mirrorTable));
    // a cast is not the service's value in the new type (a number 1 cast to text is "1.0"): a full
    // pass, saved with the change, writes every row again as the service gives it
    if (plan.changes.some((change) => change.kind === 'retyped')) current.pass = newPass(COMPLETE_PASS);
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
    maxStaleMs: null,
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
