import type { RowsPage } from '../service/index.js';

// A page of rows is checked once per request on the export's critical path, where zod costs about a
// second per million rows. This hand-written check accepts only what rowsPageSchema accepts; anything it
// does not accept goes to zod, which then either accepts it or describes the problem.

type Loose = Record<string, unknown>;

const isObject = (value: unknown): value is Loose => typeof value === 'object' && value !== null && !Array.isArray(value);
const isOptional = (value: unknown, type: 'string' | 'boolean'): boolean => value === undefined || typeof value === type;

function isCell(cell: unknown): boolean {
  return (
    isObject(cell) &&
    (cell.status === undefined || cell.status === null || typeof cell.status === 'string') &&
    isOptional(cell.isTruncated, 'boolean') &&
    isOptional(cell.valuePreview, 'string')
  );
}

function isRow(row: unknown): boolean {
  if (!isObject(row)) return false;
  if (typeof row.id !== 'string' || typeof row.tableId !== 'string') return false;
  if (typeof row.createdAt !== 'string' || typeof row.updatedAt !== 'string') return false;
  if (row.createdByUserId !== null && typeof row.createdByUserId !== 'string') return false;
  const { cells } = row;
  if (!isObject(cells)) return false;
  for (const key in cells) if (!isCell(cells[key])) return false;
  return true;
}

export function isRowsPage(value: unknown): value is RowsPage {
  if (!isObject(value)) return false;
  const { rows, limit, nextCursor, hasNextPage } = value;
  if (!Number.isSafeInteger(limit) || typeof hasNextPage !== 'boolean') return false;
  if (nextCursor !== null && typeof nextCursor !== 'string') return false;
  return Array.isArray(rows) && rows.every(isRow);
}
