import type { DuckDBConnection } from '@duckdb/node-api';
import { quoteIdent, quoteLiteral } from '../duckdb/sql-text.js';
import type { TypedColumn } from '../records/typed-plan.js';
import type { SqlType } from '../records/typed-values.js';
import { convertExpression } from './history/retyped-columns.js';
import { describeChange, sqlTypeOf, type SchemaChange, type SchemaPlan, type StoredField } from './schema-drift.js';

// Schema changes made to a mirror table, and _tds_columns written to match, inside the caller's transaction.

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

/** Applies the changes to the table and returns one line per change (with what a retype lost). */
export async function applySchema(
  connection: DuckDBConnection,
  table: string,
  before: readonly StoredField[],
  plan: SchemaPlan,
): Promise<string[]> {
  const lines: string[] = [];
  const previous = new Map(before.map((field) => [field.fieldId, field]));
  await renameColumns(connection, table, plan.changes);
  for (const change of plan.changes) {
    let line = describeChange(change);
    if (change.kind === 'added') await addColumns(connection, table, change.field);
    if (change.kind === 'retyped') line += await retype(connection, table, previous.get(change.field.fieldId)!, change);
    lines.push(line);
  }
  return lines;
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

async function addColumns(connection: DuckDBConnection, table: string, field: StoredField): Promise<void> {
  const add = (key: string, type: SqlType): Promise<unknown> =>
    connection.run(`ALTER TABLE ${quoteIdent(table)} ADD COLUMN ${quoteIdent(key)} ${type}`);
  await add(field.key, sqlTypeOf(field));
  if (field.statusKey) await add(field.statusKey, 'VARCHAR');
  if (field.errorKey) await add(field.errorKey, 'VARCHAR');
}

/**
 * A retyped field's column: the column as it was kept under its archive key (its values are the
 * versions' own, see history/retyped-columns.ts), and a new one of the new type filled where the
 * values convert (the others are NULL and counted; the full pass that follows writes the service's).
 */
async function retype(connection: DuckDBConnection, table: string, before: StoredField, change: RetypedChange): Promise<string> {
  const after = change.field;
  const from = sqlTypeOf(before);
  const to = sqlTypeOf(after);
  let note = '';
  const target = quoteIdent(table);
  if (from !== to && change.archive) {
    const column = quoteIdent(after.key);
    const kept = quoteIdent(change.archive.archiveKey);
    await connection.run(`ALTER TABLE ${target} RENAME COLUMN ${column} TO ${kept}`);
    await connection.run(`ALTER TABLE ${target} ADD COLUMN ${column} ${to}`);
    await connection.run(`UPDATE ${target} SET ${column} = ${convertExpression(kept, from, to)} WHERE ${kept} IS NOT NULL`);
    const reader = await connection.runAndReadAll(
      `SELECT count(*)::INTEGER AS lost FROM ${target} WHERE ${kept} IS NOT NULL AND ${column} IS NULL`,
    );
    const lost = Number(reader.getRowObjectsJS()[0]?.lost ?? 0);
    note =
      lost > 0
        ? `: converted; ${lost} ${lost === 1 ? 'value that does not fit is' : 'values that do not fit are'} NULL now (the column as it was is kept as ${JSON.stringify(change.archive.archiveKey)})`
        : `: converted (the column as it was is kept as ${JSON.stringify(change.archive.archiveKey)})`;
  }
  // a field that starts or stops running an action gains or loses its status and error columns
  for (const [was, now] of [
    [before.statusKey, after.statusKey],
    [before.errorKey, after.errorKey],
  ] as const) {
    if (was && !now) await connection.run(`ALTER TABLE ${target} DROP COLUMN ${quoteIdent(was)}`);
    if (!was && now) await connection.run(`ALTER TABLE ${target} ADD COLUMN ${quoteIdent(now)} VARCHAR`);
  }
  return note;
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
