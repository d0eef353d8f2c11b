import { ApiProblem } from '../http/http-io.js';
import type { FieldRec, TableRec } from '../store/model.js';
import type { EmulatorState } from '../store/state.js';

/** The table of an admin path (any organization: admin routes take no key), else a 404. */
export function adminTable(state: EmulatorState, tableId: string): TableRec {
  const table = state.tables.find((candidate) => candidate.id === tableId);
  if (!table) throw new ApiProblem(404, `Table ${tableId} not found`);
  return table;
}

/** The field of an admin path, by ID, else a 404. */
export function adminField(table: TableRec, fieldId: string): FieldRec {
  const field = table.fields.find((candidate) => candidate.id === fieldId);
  if (!field) throw new ApiProblem(404, `Field ${fieldId} not found in table ${table.id}`);
  return field;
}
