import type { Harness } from './emulator-fixture.js';

// Tables and rows made through the emulator's admin routes (/_emulator/tables), as the e2e, mirror and
// check tests set up the service's data before running tds against it.

/** A field as the admin route takes it: a label and a type, with options or an action where the type has them. */
export interface FieldSpec {
  label: string;
  type: string;
  mapKey?: string;
  options?: Array<{ label: string; value: string }>;
  action?: Record<string, unknown>;
}

/** A table the admin route made, with its fields as the emulator made them. */
export interface MadeTable {
  id: string;
  fields: Array<{ id: string; label: string; type: string }>;
  /** The ID of the field labelled `label` (the first one, where two share it). */
  fieldId(label: string): string;
}

/** Fields without options or an action, each from its label and type as one string: 'Label type' (the type after the last space). */
export const plainFields = (...columns: string[]): FieldSpec[] =>
  columns.map((column) => {
    const space = column.lastIndexOf(' ');
    return { label: column.slice(0, space), type: column.slice(space + 1) };
  });

/** The plain table of the sync and kill tests: Name (text) and N (number). */
export const NAME_AND_NUMBER: FieldSpec[] = [
  { label: 'Name', type: 'text' },
  { label: 'N', type: 'number' },
];

/** An Email and an action column deriving its domain: a table whose action cells run. */
export const EMAIL_AND_ENRICH: FieldSpec[] = [
  { label: 'Email', type: 'email' },
  { label: 'Enrich', type: 'action', action: { from: 'Email', derive: 'domain' } },
];

/** A table named `name` of `fields` in `workspace` (default Sales). */
export async function makeTable(
  harness: Pick<Harness, 'admin'>,
  name: string,
  fields: FieldSpec[],
  workspace = 'Sales',
): Promise<MadeTable> {
  const created = await harness.admin<{ table: { id: string }; fields: MadeTable['fields'] }>('POST', '/tables', {
    workspace,
    name,
    fields,
  });
  return {
    id: created.table.id,
    fields: created.fields,
    fieldId: (label) => created.fields.find((field) => field.label === label)!.id,
  };
}

/** A row as the admin route takes it: cells by label, and when it was created (default: now). */
export interface RowSpec {
  cells: Record<string, unknown>;
  createdAt?: string;
}

/** Adds `rows` to the table in one request; their IDs, in order. */
export async function addRows(harness: Pick<Harness, 'admin'>, tableId: string, rows: RowSpec[]): Promise<string[]> {
  const added = await harness.admin<{ rows: Array<{ id: string }> }>('POST', `/tables/${tableId}/rows`, { rows });
  return added.rows.map((row) => row.id);
}
