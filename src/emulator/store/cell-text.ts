import type { StoredCell } from './model.js';

/** A cell value as text: strings as they are, everything else as JSON text ('' when empty). */
export function cellText(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** No value: absent, null, '' or an empty list. */
export function isEmptyValue(value: unknown): boolean {
  return value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0);
}

/** A cell with nothing to show is left out of row responses. */
export function isEmptyCell(cell: StoredCell | undefined): boolean {
  return (
    cell === undefined ||
    (isEmptyValue(cell.value) && (cell.status === undefined || cell.status === null) && isEmptyValue(cell.errorMessage))
  );
}
