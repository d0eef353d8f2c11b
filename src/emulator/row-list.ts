import { compareCreated, compareIds, type RowSource, type StoredRow } from './model.js';

const BULK_APPEND = 64;

/** Rows held in memory, kept sorted in both orders; rows arrive through the webhook intake. */
export class RowList implements RowSource {
  private readonly byCreated: StoredRow[] = [];
  private readonly byId: StoredRow[] = [];

  constructor(rows: readonly StoredRow[] = []) {
    this.byCreated = [...rows].sort(compareCreated);
    this.byId = [...rows].sort((a, b) => compareIds(a.id, b.id));
  }

  get size(): number {
    return this.byCreated.length;
  }

  at(index: number): StoredRow {
    return this.byCreated[index]!;
  }

  atById(index: number): StoredRow {
    return this.byId[index]!;
  }

  /**
   * Rows come in creation order, so their insertion point by creation is almost always the end; by ID it
   * is anywhere, so a large arrival is appended and sorted once (the sort merges the two sorted runs)
   * instead of spliced in row by row, which would be quadratic.
   */
  append(rows: readonly StoredRow[]): void {
    const byId = (a: StoredRow, b: StoredRow) => compareIds(a.id, b.id);
    if (rows.length < BULK_APPEND) {
      for (const row of rows) {
        insertSorted(this.byCreated, row, compareCreated);
        insertSorted(this.byId, row, byId);
      }
      return;
    }
    for (const row of rows) {
      this.byCreated.push(row);
      this.byId.push(row);
    }
    this.byCreated.sort(compareCreated);
    this.byId.sort(byId);
  }

  all(): readonly StoredRow[] {
    return this.byCreated;
  }
}

function insertSorted<T>(items: T[], item: T, compare: (a: T, b: T) => number): void {
  let low = 0;
  let high = items.length;
  if (high > 0 && compare(items[high - 1]!, item) <= 0) {
    items.push(item);
    return;
  }
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (compare(items[mid]!, item) <= 0) low = mid + 1;
    else high = mid;
  }
  items.splice(low, 0, item);
}
