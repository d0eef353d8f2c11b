import type { Field } from '../service/index.js';
import { keyFields } from './column-keys.js';
import { selectColumns } from './select-columns.js';
import { META_KEYS, type ShapeOptions } from './shape-options.js';

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
