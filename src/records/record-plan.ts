import type { Field } from '../service/index.js';
import { keyFields } from './column-keys.js';
import { selectColumns } from './select-columns.js';
import { META_KEYS, type ShapeOptions } from './shape-options.js';
import { uniqueKey } from './unique-key.js';

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

/** The record layout for a schema and the shaping flags; `statusFields` from statusFieldIds(). */
export function planRecord(fields: readonly Field[], options: ShapeOptions, statusFields: ReadonlySet<string> = new Set()): RecordPlan {
  const keyed = keyFields(fields, options.header);
  const chosen = options.columns
    ? selectColumns(options.columns, keyed)
    : keyed.filter((column) => options.system || !column.field.isSystem);
  const taken = new Set<string>([...META_KEYS, ...keyed.map((column) => column.key)]);
  const keys: string[] = options.meta ? [...META_KEYS] : [];
  const columns = chosen.map(({ field, key }): PlannedColumn => {
    keys.push(key);
    if (!options.statusColumns || !statusFields.has(field.id)) return { field, key };
    const statusKey = uniqueKey(`${key}.status`, taken);
    const errorKey = uniqueKey(`${key}.error`, taken);
    keys.push(statusKey, errorKey);
    return { field, key, statusKey, errorKey };
  });
  return { meta: options.meta, columns, keys };
}
