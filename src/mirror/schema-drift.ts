import { ServiceFaultError } from '../core/index.js';
import type { Field } from '../service/index.js';
import { type HeaderMode, typedPlan, type TypedColumn, SQL_TYPE_OF, type SqlType } from '../records/index.js';
import { HISTORY_KEYS } from './history/history-objects.js';
import type { ArchivedColumn } from './history/retyped-columns.js';

/** One field as the mirror last saw it (a row of _tds_columns). */
export interface StoredField {
  fieldId: string;
  position: number;
  key: string;
  statusKey: string | null;
  errorKey: string | null;
  label: string;
  name: string;
  type: Field['type'];
  options: Field['options'];
  isSystem: boolean;
  removed: boolean;
}

export type SchemaChange =
  | { kind: 'added'; field: StoredField }
  | { kind: 'removed'; field: StoredField }
  | { kind: 'restored'; field: StoredField }
  | { kind: 'renamed'; field: StoredField; from: { key: string; statusKey: string | null; errorKey: string | null } }
  | { kind: 'retyped'; field: StoredField; from: Field['type']; archive?: ArchivedColumn };

export interface SchemaPlan {
  /** The columns a row is written with now (removed fields' columns are left NULL). */
  columns: TypedColumn[];
  /** What the mirror's fields become. */
  fields: StoredField[];
  /** In the order they are to be applied. */
  changes: SchemaChange[];
}

/**
 * What the mirror's columns must become for the service's fields: a new field adds a column; a
 * relabelled (or renamed, with --header name) field renames its column; a removed field keeps its
 * column, marked removed; a retyped field's column is converted (the old one kept: see
 * history/retyped-columns.ts). The live fields have the keys an export gives them; a removed field's
 * kept column whose key a live field now has takes a suffix (one rule for every output's keys).
 */
export function planSchema(
  stored: readonly StoredField[],
  fields: readonly Field[],
  header: HeaderMode,
  archived: readonly string[] = [],
): SchemaPlan {
  const current = new Set(fields.map((field) => field.id));
  const gone = stored.filter((field) => !current.has(field.fieldId));
  // a field takes no key of the history's columns (_syncId, and those of T__history), nor a retype's kept
  // column; a removed field's kept column yields its key to a live field (an export's key) and takes a suffix
  const reserved = [...HISTORY_KEYS, ...archived];
  const columns = typedPlan(fields, { header, reserved });
  const taken = new Set([...reserved, ...columns.map((column) => column.key)].map((key) => key.toLowerCase()));
  const byId = new Map(stored.map((field) => [field.fieldId, field]));
  const changes: SchemaChange[] = [];
  const next: StoredField[] = fields.map((field, position) => {
    const now = storedFieldOf(field, position, columns);
    const before = byId.get(field.id);
    if (!before) changes.push({ kind: 'added', field: now });
    else {
      if (before.removed) changes.push({ kind: 'restored', field: now });
      if (SQL_TYPE_OF[before.type] !== SQL_TYPE_OF[field.type] || (before.type === 'action') !== (field.type === 'action')) {
        changes.push({ kind: 'retyped', field: now, from: before.type });
      }
      if (renamedKeys(before, now).length > 0) changes.push({ kind: 'renamed', field: now, from: before });
    }
    return now;
  });
  for (const field of gone) {
    const now: StoredField = { ...field, ...keptKeys(field, taken), removed: true, position: next.length };
    if (!field.removed) changes.push({ kind: 'removed', field: now });
    if (renamedKeys(field, now).length > 0) changes.push({ kind: 'renamed', field: now, from: field });
    next.push(now);
  }
  return { columns, fields: next, changes };
}

/**
 * A schema whose field IDs are not unique is the service's fault: the mirror keys its columns by field
 * ID and cannot tell two fields of one ID apart, so the sync stops before it writes anything.
 */
export function checkFieldIds(table: string, fields: readonly Field[]): void {
  const seen = new Map<string, Field>();
  for (const field of fields) {
    const first = seen.get(field.id);
    if (first)
      throw new ServiceFaultError(
        `the service's schema of ${table} gives two fields one ID, ${field.id} (${JSON.stringify(first.label)} and ${JSON.stringify(field.label)}): the service is at fault, and nothing was written to the mirror`,
        { hint: 'the table can still be exported (tds rows); report the schema to the service' },
      );
    seen.set(field.id, field);
  }
}

/**
 * The keys of a removed field's kept column: its own while no live field (nor another kept column)
 * has them, ignoring case; else its key with the next free ` (2)`, ` (3)`, … (`.status` and `.error`
 * after it). The keys chosen are added to `taken`.
 */
function keptKeys(field: StoredField, taken: Set<string>): FieldKeys {
  const keysOf = (key: string): FieldKeys => ({
    key,
    statusKey: field.statusKey === null ? null : `${key}.status`,
    errorKey: field.errorKey === null ? null : `${key}.error`,
  });
  const free = (keys: FieldKeys): boolean =>
    [keys.key, keys.statusKey, keys.errorKey].every((key) => key === null || !taken.has(key.toLowerCase()));
  let keys: FieldKeys = { key: field.key, statusKey: field.statusKey, errorKey: field.errorKey };
  const base = field.key.replace(/ \(\d+\)$/, '');
  for (let n = 2; !free(keys); n += 1) keys = keysOf(`${base} (${n})`);
  for (const key of [keys.key, keys.statusKey, keys.errorKey]) if (key !== null) taken.add(key.toLowerCase());
  return keys;
}

function storedFieldOf(field: Field, position: number, columns: readonly TypedColumn[]): StoredField {
  const keyOf = (role: TypedColumn['role']): string | null =>
    columns.find((column) => column.field?.id === field.id && column.role === role)?.key ?? null;
  return {
    fieldId: field.id,
    position,
    key: keyOf('value')!,
    statusKey: keyOf('status'),
    errorKey: keyOf('error'),
    label: field.label,
    name: field.name,
    type: field.type,
    options: field.options,
    isSystem: field.isSystem,
    removed: false,
  };
}

type FieldKeys = Pick<StoredField, 'key' | 'statusKey' | 'errorKey'>;

/** The columns of a field that stay but change keys (a status column that comes or goes is a retype). */
function renamedKeys(before: FieldKeys, after: FieldKeys): Array<[from: string, to: string]> {
  const pairs = (['key', 'statusKey', 'errorKey'] as const).map((which) => [before[which], after[which]] as const);
  return pairs
    .filter((pair): pair is readonly [string, string] => pair[0] !== null && pair[1] !== null && pair[0] !== pair[1])
    .map(([from, to]) => [from, to]);
}

/** The SQL type of a stored field's value column. */
export function sqlTypeOf(field: Pick<StoredField, 'type'>): SqlType {
  return SQL_TYPE_OF[field.type];
}

/** `column "Score" added (number)` and the like: one line per change, for stderr. */
export function describeChange(change: SchemaChange): string {
  const { field } = change;
  switch (change.kind) {
    case 'added':
      return `column ${JSON.stringify(field.key)} added (${field.type})`;
    case 'removed':
      return `field ${JSON.stringify(field.label)} was removed from the table; its column ${JSON.stringify(field.key)} is kept`;
    case 'restored':
      return `field ${JSON.stringify(field.label)} is back; its column ${JSON.stringify(field.key)} is filled again`;
    case 'renamed': {
      // the value column's key, else (its label kept) the status or error column's
      const [from, to] = renamedKeys(change.from, field)[0]!;
      return `column ${JSON.stringify(from)} renamed to ${JSON.stringify(to)}`;
    }
    case 'retyped':
      return `column ${JSON.stringify(field.key)} retyped from ${change.from} to ${field.type}`;
  }
}
