import { OPERATORS_BY_TYPE, type Field, type Row } from '../service/index.js';

/**
 * The columns that get `<key>.status` and `<key>.error` under --status-columns: those whose type
 * runs an action (the types that take run-status operators in the service's table: action,
 * webhook), plus any column whose cells in `sample` (the first page) carry a status or an error.
 * The set is fixed before the first record is written, so the CSV header is known and every
 * record has the same keys without buffering the export; a column that first shows a status
 * later in the export gets no status keys.
 */
export function statusFieldIds(fields: readonly Field[], sample: readonly Row[]): Set<string> {
  const ids = new Set<string>();
  for (const field of fields) {
    if (OPERATORS_BY_TYPE[field.type].includes('hasError')) ids.add(field.id);
  }
  for (const row of sample) {
    for (const [fieldId, cell] of Object.entries(row.cells)) {
      if ((cell.status !== undefined && cell.status !== null) || cell.errorMessage !== undefined) ids.add(fieldId);
    }
  }
  return ids;
}
