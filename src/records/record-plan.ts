import { UsageError } from '../core/index.js';
import type { Field } from '../service/index.js';
import { carriesStatus, keyFields, type KeyedField } from './column-keys.js';
import { META_KEYS, type ShapeOptions } from './shape-options.js';

// Which keys a row record has, in output order (docs/cli.md "Row records"): the meta keys, the columns
// that --no-system and --columns leave (planRecord), and --status-columns' keys (statusFieldIds).

export interface PlannedColumn {
  field: Field;
  key: string;
  /** Under --status-columns, for a column that carries run statuses. */
  statusKey?: string;
  errorKey?: string;
}

/** Which keys a record has, in output order, and where each value comes from. */
export interface RecordPlan {
  meta: boolean;
  columns: PlannedColumn[];
  /** Every key in output order (the CSV header). */
  keys: string[];
}

/**
 * The record layout for a schema and the shaping flags. The keys are keyFields' (the same in every
 * output, whatever the flags); `statusFields` (from statusFieldIds) are the columns whose `<key>.status`
 * and `<key>.error` are written under --status-columns.
 */
export function planRecord(fields: readonly Field[], options: ShapeOptions, statusFields: ReadonlySet<string> = new Set()): RecordPlan {
  const keyed = keyFields(fields, options.header);
  const chosen = options.columns
    ? selectColumns(options.columns, keyed)
    : keyed.filter((column) => options.system || !column.field.isSystem);
  const keys: string[] = options.meta ? [...META_KEYS] : [];
  const columns = chosen.map(({ field, key, statusKey, errorKey }): PlannedColumn => {
    keys.push(key);
    if (!options.statusColumns || !statusFields.has(field.id) || statusKey === undefined || errorKey === undefined) return { field, key };
    keys.push(statusKey, errorKey);
    return { field, key, statusKey, errorKey };
  });
  return { meta: options.meta, columns, keys };
}

/**
 * The columns that get `<key>.status` and `<key>.error` under --status-columns: those whose cells
 * carry a run status (the action columns), from the schema alone, so that an export, Parquet and
 * the mirror agree on them and the CSV header is known before the first row.
 */
export function statusFieldIds(fields: readonly Field[]): Set<string> {
  return new Set(fields.filter(carriesStatus).map((field) => field.id));
}

/**
 * `--columns A,B`: each reference is a column ID, a record key (`Value (2)`), a label or a name,
 * tried in that order; the result follows the order given.
 */
export function selectColumns(refs: readonly string[], keyed: readonly KeyedField[]): KeyedField[] {
  const picked: KeyedField[] = [];
  for (const ref of refs) {
    const column = resolveColumnRef(ref, keyed);
    if (picked.includes(column)) {
      throw new UsageError(`--columns names the column "${column.key}" (${column.field.id}) more than once`);
    }
    picked.push(column);
  }
  return picked;
}

function resolveColumnRef(ref: string, keyed: readonly KeyedField[]): KeyedField {
  const exact = keyed.find((column) => column.field.id === ref) ?? keyed.find((column) => column.key === ref);
  if (exact) return exact;
  for (const member of ['label', 'name'] as const) {
    const matches = keyed.filter((column) => column.field[member] === ref);
    if (matches.length === 1) return matches[0]!;
    if (matches.length > 1) {
      const candidates = matches.map((column) => `"${column.key}" (${column.field.id})`).join(', ');
      throw new UsageError(`--columns: the ${member} "${ref}" belongs to ${matches.length} columns: ${candidates}`, {
        hint: 'name one of them by its key or ID',
      });
    }
  }
  const available = keyed.map((column) => `"${column.key}" (${column.field.id})`).join(', ');
  throw new UsageError(`--columns: no column "${ref}"; the columns are: ${available}`, {
    hint: 'a column can be named by its label, name, ID or record key; `tds schema TABLE` lists them',
  });
}
