import type { DuckDBConnection } from '@duckdb/node-api';
import { z } from 'zod';
import { loadFields } from '../mirror/apply-schema.js';
import type { StoredField } from '../mirror/schema-drift.js';
import { META_KEYS } from '../records/shape-options.js';
import { TRUNCATED_KEY, typedPlan, type ColumnRole } from '../records/typed-plan.js';
import type { Field } from '../service/index.js';

// A table's columns as SQL over the mirror sees them: each key (the export's key, quoted in SQL when it
// has spaces or capitals), its DuckDB type, and the field it comes from.

export const columnEntry = z.object({
  key: z.string().describe('the column name in the mirror and in records'),
  sqlType: z.string(),
  role: z.string().describe('id, meta, value (a field), status / error (of an action column), truncated, or other'),
  label: z.string().optional(),
  name: z.string().optional(),
  type: z.string().optional().describe("the field's type in the service"),
  fieldId: z.string().optional(),
  options: z.array(z.string()).optional().describe('select / multi_select: the option labels (the values stored)'),
  removed: z.boolean().optional().describe('the field was removed from the service; the mirror keeps its column'),
  fill: z.number().optional().describe('mirrored: the share of rows with a value (0-1)'),
  states: z.record(z.string(), z.number()).optional().describe('mirrored action column: its cells by run state'),
});
export type ColumnEntry = z.infer<typeof columnEntry>;

/** What the mirror table's columns are (DuckDB's own list, in order), with what _tds_columns says of their fields. */
export async function mirroredColumns(connection: DuckDBConnection, tableId: string, mirrorTable: string): Promise<ColumnEntry[]> {
  const fields = await loadFields(connection, tableId);
  const reader = await connection.runAndReadAll(
    'SELECT column_name, data_type FROM duckdb_columns() ' +
      "WHERE database_name = current_database() AND schema_name = 'main' AND table_name = $1 ORDER BY column_index",
    [mirrorTable],
  );
  const byKey = new Map<string, { field: StoredField; role: ColumnRole }>();
  for (const field of fields) {
    byKey.set(field.key, { field, role: 'value' });
    if (field.statusKey) byKey.set(field.statusKey, { field, role: 'status' });
    if (field.errorKey) byKey.set(field.errorKey, { field, role: 'error' });
  }
  return reader.getRowObjectsJS().map((row) => {
    const key = String(row.column_name);
    const sqlType = String(row.data_type);
    const known = byKey.get(key);
    if (!known) return { key, sqlType, role: builtInRole(key) };
    const { field, role } = known;
    return {
      key,
      sqlType,
      role,
      ...fieldMembers({ id: field.fieldId, label: field.label, name: field.name, type: field.type, options: field.options }),
      ...(field.removed ? { removed: true } : {}),
    };
  });
}

/** The columns a sync would give the table (for a table not mirrored yet), keys by label. */
export function plannedColumns(fields: readonly Field[]): ColumnEntry[] {
  return typedPlan(fields, { header: 'label' }).map((column) => ({
    key: column.key,
    sqlType: column.type,
    role: column.role,
    ...(column.field ? fieldMembers(column.field) : {}),
  }));
}

function fieldMembers(field: Pick<Field, 'id' | 'label' | 'name' | 'type' | 'options'>): Partial<ColumnEntry> {
  return {
    label: field.label,
    name: field.name,
    type: field.type,
    fieldId: field.id,
    ...(field.options ? { options: field.options.map((option) => option.label) } : {}),
  };
}

function builtInRole(key: string): string {
  if (key === '_id') return 'id';
  if ((META_KEYS as readonly string[]).includes(key)) return 'meta';
  if (key === TRUNCATED_KEY) return 'truncated';
  return 'other';
}
