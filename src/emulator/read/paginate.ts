import type { CursorPosition } from './cursor.js';
import type { RowPredicate } from './filter-match.js';
import type { RowSource, StoredRow } from '../store/model.js';

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
 * One page, resumed just past the cursor's row by its sort key (not an offset), so rows that arrive or go
 * between pages never make a page skip or repeat a row that stays. A plain page touches only the rows it
 * returns; a filtered page scans from the cursor until it has `limit` matches and knows whether one more exists.
 */
export function readPage(source: RowSource, query: PageQuery): Page {
  const rows: StoredRow[] = [];
  const { match, limit, after } = query;
  const walk =
    query.order === 'newest'
      ? source.newest(after === undefined ? undefined : { id: after.id, createdAt: after.createdAt ?? 0 })
      : source.byId(after?.id);
  for (const row of walk) {
    if (match && !match(row)) continue;
    if (rows.length === limit) return { rows, hasNextPage: true };
    rows.push(row);
  }
  return { rows, hasNextPage: false };
}
