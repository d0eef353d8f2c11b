import type { GeneratedRow, GeneratedRows } from './generated-rows.js';
import { mergeSorted } from './merge-sorted.js';
import { compareIds, type RowKey, type RowStore, type StoredRow } from './model.js';
import { hasPlainCells, plainCells } from './plain-cells.js';
import { RowList } from './row-list.js';

const newestFirst = (a: StoredRow, b: StoredRow): number => b.createdAt - a.createdAt || compareIds(b.id, a.id);
const idOrder = (a: StoredRow, b: StoredRow): number => compareIds(a.id, b.id);

/**
 * A computed table that changes: its rows stay computed from their index, and only what changed is held:
 * the indexes of deleted rows, a copy of each edited row, and the added rows. Memory grows with the changes,
 * never with the table, and pages cost what they cost without changes.
 */
export class GeneratedOverlay implements RowStore {
  readonly deleted = new Set<number>();
  readonly edited = new Map<number, StoredRow>();
  readonly added: RowList;

  constructor(
    readonly base: GeneratedRows,
    added: readonly StoredRow[] = [],
  ) {
    this.added = new RowList(added);
  }

  get size(): number {
    return this.base.size - this.deleted.size + this.added.size;
  }

  newest(before?: RowKey): Iterable<StoredRow> {
    const base = this.live(this.base.newest(before));
    return this.added.size === 0 ? base : mergeSorted(base, this.added.newest(before), newestFirst);
  }

  byId(afterId?: string): Iterable<StoredRow> {
    const base = this.live(this.base.byId(afterId));
    return this.added.size === 0 ? base : mergeSorted(base, this.added.byId(afterId), idOrder);
  }

  edit(id: string): StoredRow | undefined {
    const index = this.base.indexOf(id);
    if (index === undefined) {
      const row = this.added.edit(id);
      if (row && !hasPlainCells(row.cells)) row.cells = plainCells(row.cells);
      return row;
    }
    if (this.deleted.has(index)) return undefined;
    let row = this.edited.get(index);
    if (!row) {
      const computed = this.base.at(index);
      row = { id, createdAt: computed.createdAt, updatedAt: computed.updatedAt, createdByUserId: null, cells: plainCells(computed.cells) };
      this.edited.set(index, row);
    }
    return row;
  }

  add(rows: readonly StoredRow[]): void {
    this.added.add(rows);
  }

  remove(id: string): StoredRow | undefined {
    const index = this.base.indexOf(id);
    if (index === undefined) return this.added.remove(id);
    if (this.deleted.has(index)) return undefined;
    const row = this.edited.get(index) ?? this.base.at(index);
    this.deleted.add(index);
    this.edited.delete(index);
    return row;
  }

  sample(random: number): StoredRow | undefined {
    const alive = this.base.size - this.deleted.size;
    const at = random * this.size;
    if (at >= alive) return this.added.sample((at - alive) / this.added.size);
    let index = Math.floor((at / alive) * this.base.size);
    while (this.deleted.has(index)) index = (index + 1) % this.base.size;
    return this.edited.get(index) ?? this.base.at(index);
  }

  *held(): Iterable<StoredRow> {
    yield* this.edited.values();
    yield* this.added.held();
  }

  /** The computed rows less the deleted ones, edited ones in their place. */
  private live(rows: Iterable<GeneratedRow>): Iterable<StoredRow> {
    if (this.deleted.size === 0 && this.edited.size === 0) return rows;
    return this.liveRows(rows);
  }

  private *liveRows(rows: Iterable<GeneratedRow>): Iterable<StoredRow> {
    for (const row of rows) {
      if (this.deleted.has(row.index)) continue;
      yield this.edited.get(row.index) ?? row;
    }
  }
}
