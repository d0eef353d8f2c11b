import { keyFields, selectColumns, type ShapeOptions, typedPlan, type TypedColumn } from '../records/index.js';
import type { Field } from '../service/index.js';

/**
 * The columns of a Parquet export: the mirror's typed plan (same keys, same types, `<key>.status` and
 * `<key>.error` after each action column, `_truncated` last), picked by the export's shaping flags:
 * `--no-meta` drops `_id` and the other meta keys, `--no-system` the system columns, and `--columns`
 * picks and orders the field columns (an action column brings its status and error columns along).
 * `_truncated` is always there: a typed file has no other way to say which values were cut.
 */
export function parquetColumns(fields: readonly Field[], shape: ShapeOptions): TypedColumn[] {
  const plan = typedPlan(fields, { header: shape.header });
  // The keys typedPlan gave the fields, so --columns may name a column by them.
  const keyed = keyFields(fields, shape.header);
  const chosen = shape.columns ? selectColumns(shape.columns, keyed) : keyed.filter((column) => shape.system || !column.field.isSystem);
  const byField = new Map<string, TypedColumn[]>();
  for (const column of plan) {
    if (column.field) byField.set(column.field.id, [...(byField.get(column.field.id) ?? []), column]);
  }
  return [
    ...(shape.meta ? plan.filter((column) => column.role === 'id' || column.role === 'meta') : []),
    ...chosen.flatMap((column) => byField.get(column.field.id) ?? []),
    ...plan.filter((column) => column.role === 'truncated'),
  ];
}
