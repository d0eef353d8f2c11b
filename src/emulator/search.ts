import { cellText } from './cell-text.js';
import type { RowPredicate } from './filter-match.js';

/** Case-insensitive substring search across every cell's value (objects as JSON text). */
export function searchPredicate(search: string): RowPredicate {
  const needle = search.toLowerCase();
  return (row) => {
    for (const id in row.cells) if (cellText(row.cells[id]!.value).toLowerCase().includes(needle)) return true;
    return false;
  };
}
