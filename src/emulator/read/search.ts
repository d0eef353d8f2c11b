import { cellText } from '../store/cell-text.js';
import type { RowPredicate } from './filter-match.js';
import type { FieldRec } from '../store/model.js';

/** Case-insensitive substring search across every cell's value (objects as JSON text). */
export function searchPredicate(search: string, fields: readonly FieldRec[]): RowPredicate {
  const needle = search.toLowerCase();
  const ids = fields.map((field) => field.id);
  return (row) => {
    for (const id of ids) {
      const cell = row.cells[id];
      if (cell !== undefined && cellText(cell.value).toLowerCase().includes(needle)) return true;
    }
    return false;
  };
}
