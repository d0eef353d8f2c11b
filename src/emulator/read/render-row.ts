import { CELL_MAX_CHARS, type Cell, type Field, type Row } from '../../service/index.js';
import { cellText, isEmptyCell } from '../store/cell-values.js';
import type { FieldRec, StoredRow } from '../store/model.js';

/** A row as the service sends it: empty cells left out, long values cut with `isTruncated` and `valuePreview`. */
export function renderRow(row: StoredRow, tableId: string, fields: readonly FieldRec[]): Row {
  const cells: Record<string, Cell> = {};
  for (const field of fields) {
    const stored = row.cells[field.id];
    if (stored === undefined || isEmptyCell(stored)) continue;
    const cell: Cell = { value: stored.value ?? null };
    if (stored.status !== undefined && stored.status !== null) cell.status = stored.status;
    if (stored.errorMessage !== undefined && stored.errorMessage !== null) cell.errorMessage = stored.errorMessage;
    const preview = cutText(stored.value);
    if (preview !== undefined) {
      if (field.previewOnly) delete cell.value;
      else cell.value = preview;
      cell.isTruncated = true;
      cell.valuePreview = preview;
    }
    cells[field.id] = cell;
  }
  return {
    id: row.id,
    tableId,
    createdAt: new Date(row.createdAt).toISOString(),
    updatedAt: new Date(row.updatedAt).toISOString(),
    createdByUserId: row.createdByUserId,
    cells,
  };
}

/** The first 200 characters (code points, so no emoji is split) when the value's text is longer, else undefined. */
function cutText(value: unknown): string | undefined {
  if (typeof value === 'number' || typeof value === 'boolean' || value === null || value === undefined) return undefined;
  const text = cellText(value);
  if (text.length <= CELL_MAX_CHARS) return undefined;
  const chars = Array.from(text);
  return chars.length > CELL_MAX_CHARS ? chars.slice(0, CELL_MAX_CHARS).join('') : undefined;
}

/** A column as the service shows it: action settings, mapped keys and the like stay inside. */
export function publicField({ id, name, label, type, options, isSystem }: FieldRec): Field {
  return { id, name, label, type, options, isSystem };
}
