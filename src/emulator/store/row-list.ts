import { compareCreated, compareIds, type RowKey, type RowStore, type StoredRow } from './model.js';

const BULK_APPEND = 64;

const byId = (a: StoredRow, b: StoredRow): number => compareIds(a.id, b.id);

/** Rows held in memory, kept sorted in both orders (creation, and id). */
export class RowList implements RowStore {
  private readonly byCreated: StoredRow[] = [];
  private readonly idOrder: StoredRow[] = [];
  /** Moves on whenever rows may change (added, removed, or handed out to be edited): read/key-index.ts rebuilds on it. */
  revision = 0;

  constructor(rows: readonly StoredRow[] = []) {
    this.byCreated = [...rows].sort(compareCreated);
    this.idOrder = [...rows].sort(byId);
  }

  get size(): number {
    return this.byCreated.length;
  }

  at(index: number): StoredRow {
    return this.byCreated[index]!;
  }

  atById(index: number): StoredRow {
    return this.idOrder[index]!;
  }

  *newest(before?: RowKey): Iterable<StoredRow> {
    const rows = this.byCreated;
    const start = before === undefined ? rows.length : firstIndex(rows.length, (i) => compareCreated(rows[i]!, before) >= 0);
    for (let i = start - 1; i >= 0; i -= 1) yield rows[i]!;
  }

  *byId(afterId?: string): Iterable<StoredRow> {
    const rows = this.idOrder;
    const start = afterId === undefined ? 0 : firstIndex(rows.length, (i) => compareIds(rows[i]!.id, afterId) > 0);
    for (let i = start; i < rows.length; i += 1) yield rows[i]!;
  }

  edit(id: string): StoredRow | undefined {
    this.revision += 1;
    const index = this.indexById(id);
    return index < 0 ? undefined : this.idOrder[index];
  }

  add(rows: readonly StoredRow[]): void {
    this.append(rows);
  }

  /**
   * Rows come in creation order, so their insertion point by creation is almost always the end; by ID it
   * is anywhere, so a large arrival is appended and sorted once (the sort merges the two sorted runs)
   * instead of spliced in row by row, which would be quadratic.
   */
  append(rows: readonly StoredRow[]): void {
    this.revision += 1;
    if (rows.length < BULK_APPEND) {
      for (const row of rows) {
        insertSorted(this.byCreated, row, compareCreated);
        insertSorted(this.idOrder, row, byId);
      }
      return;
    }
    for (const row of rows) {
      this.byCreated.push(row);
      this.idOrder.push(row);
    }
    this.byCreated.sort(compareCreated);
    this.idOrder.sort(byId);
  }

  remove(id: string): StoredRow | undefined {
    this.revision += 1;
    const index = this.indexById(id);
    if (index < 0) return undefined;
    const row = this.idOrder[index]!;
    this.idOrder.splice(index, 1);
    const created = firstIndex(this.byCreated.length, (i) => compareCreated(this.byCreated[i]!, row) >= 0);
    this.byCreated.splice(created, 1);
    return row;
  }

  sample(random: number): StoredRow | undefined {
    return this.byCreated[Math.floor(random * this.byCreated.length)];
  }

  held(): Iterable<StoredRow> {
    this.revision += 1;
    return this.byCreated;
  }

  all(): readonly StoredRow[] {
    return this.byCreated;
  }

  private indexById(id: string): number {
    const index = firstIndex(this.idOrder.length, (i) => compareIds(this.idOrder[i]!.id, id) >= 0);
    return this.idOrder[index]?.id === id ? index : -1;
  }
}

function insertSorted<T>(items: T[], item: T, compare: (a: T, b: T) => number): void {
  const high = items.length;
  if (high === 0 || compare(items[high - 1]!, item) <= 0) {
    items.push(item);
    return;
  }
  items.splice(
    firstIndex(high, (i) => compare(items[i]!, item) > 0),
    0,
    item,
  );
}

/** The first index in [0, size) where the monotone `isAtOrPast` holds (size when none). */
export function firstIndex(size: number, isAtOrPast: (index: number) => boolean): number {
  let low = 0;
  let high = size;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (isAtOrPast(mid)) high = mid;
    else low = mid + 1;
  }
  return low;
}
