import type { CursorPosition } from './cursor.js';
import { compareCreated, compareIds, type RowSource, type StoredRow } from './model.js';
import type { RowPredicate } from './filter-match.js';

export interface PageQuery {
  /** Newest first (createdAt then id, descending), or ascending by row id. */
  order: 'newest' | 'id';
  after?: CursorPosition;
  limit: number;
  match?: RowPredicate;
}

export interface Page {
  rows: StoredRow[];
  hasNextPage: boolean;
}

/**
 * One page, resumed just past the cursor's row by its sort key (not an offset), so rows that arrive between
 * pages never make a page skip or repeat an existing row. A plain page touches only the rows it returns; a
 * filtered page scans from the cursor until it has `limit` matches and knows whether one more exists.
 */
export function readPage(source: RowSource, query: PageQuery): Page {
  const rows: StoredRow[] = [];
  const { match, limit } = query;
  let hasNextPage = false;
  const take = (row: StoredRow): boolean => {
    if (match && !match(row)) return true;
    if (rows.length === limit) {
      hasNextPage = true;
      return false;
    }
    rows.push(row);
    return true;
  };
  if (query.order === 'newest') {
    const after = query.after;
    const start =
      after === undefined
        ? source.size - 1
        : firstIndex(source.size, (i) => compareCreated(source.at(i), { id: after.id, createdAt: after.createdAt ?? 0 }) >= 0) - 1;
    for (let i = start; i >= 0 && take(source.at(i)); i -= 1);
  } else {
    const after = query.after;
    const start = after === undefined ? 0 : firstIndex(source.size, (i) => compareIds(source.atById(i).id, after.id) > 0);
    for (let i = start; i < source.size && take(source.atById(i)); i += 1);
  }
  return { rows, hasNextPage };
}

/** The first index in [0, size) where the monotone `isAtOrPast` holds (size when none). */
function firstIndex(size: number, isAtOrPast: (index: number) => boolean): number {
  let low = 0;
  let high = size;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (isAtOrPast(mid)) high = mid;
    else low = mid + 1;
  }
  return low;
}
