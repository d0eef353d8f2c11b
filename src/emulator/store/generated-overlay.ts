import { createPrng } from '../seed/prng.js';
import { hasPlainCells, plainCells } from './cell-values.js';
import { GENERATED_PLANS, GeneratedRows, type GeneratedFieldIds, type GeneratedRow, type GeneratedShape } from './generated-rows.js';
import { seededId, compareCreated, type FieldRec, type RowKey, type RowStore, type StoredRow, type TableRec } from './model.js';
import { RowList } from './row-list.js';
import type { EmulatorState } from './state.js';

/**
 * A computed table that changes: its rows stay computed from their index, and only what changed is held:
 * the indexes of deleted rows, a copy of each edited row, and the added rows. Memory grows with the changes,
 * never with the table, and pages cost what they cost without changes.
 */
export class GeneratedOverlay implements RowStore {
  readonly deleted = new Set<number>();
  readonly edited = new Map<number, StoredRow>();
  readonly added: RowList;
  private readonly ranks = new WeakMap<StoredRow, number>();

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
    return this.added.size === 0 ? this.live(this.base.newest(before)) : this.mergedNewest(before);
  }

  byId(afterId?: string): Iterable<StoredRow> {
    return this.added.size === 0 ? this.live(this.base.byId(afterId)) : this.mergedById(afterId);
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
      const live = this.liveRow(row);
      if (live) yield live;
    }
  }

  private liveRow(row: GeneratedRow): StoredRow | undefined {
    if (this.deleted.has(row.index)) return undefined;
    return this.edited.get(row.index) ?? row;
  }

  /** Computed rows newest first with the added rows among them; a computed row's id is read only on a tie of createdAt. */
  private *mergedNewest(before?: RowKey): Iterable<StoredRow> {
    const added = this.added.newest(before)[Symbol.iterator]();
    let next = added.next();
    for (let i = this.base.indexBefore(before) - 1; i >= 0; i -= 1) {
      const row = this.base.at(i);
      for (; !next.done && compareCreated(next.value, row) > 0; next = added.next()) yield next.value;
      const live = this.liveRow(row);
      if (live) yield live;
    }
    for (; !next.done; next = added.next()) yield next.value;
  }

  /** Computed rows in id order with the added rows among them, placed by rank: no computed id is read. */
  private *mergedById(afterId?: string): Iterable<StoredRow> {
    const added = this.added.byId(afterId)[Symbol.iterator]();
    let next = added.next();
    for (let rank = this.base.rankAfter(afterId); rank < this.base.size; rank += 1) {
      for (; !next.done && this.rankOf(next.value) <= rank; next = added.next()) yield next.value;
      const live = this.liveRow(this.base.atById(rank));
      if (live) yield live;
    }
    for (; !next.done; next = added.next()) yield next.value;
  }

  /** Where an added row goes among the computed rows in id order: the first rank whose id is above its own (kept). */
  private rankOf(row: StoredRow): number {
    let rank = this.ranks.get(row);
    if (rank === undefined) this.ranks.set(row, (rank = this.base.rankAfter(row.id)));
    return rank;
  }
}

export const BENCH_WORKSPACE = 'Bench';
export const BENCH_TABLE = 'Generated';

/** Adds (or resizes) the first organization's workspace "Bench" with table "Generated" of `count` rows. */
export function addGeneratedTable(state: EmulatorState, count: number, now: number): TableRec {
  const org = state.orgs[0];
  if (!org) throw new Error('no organization to add the Bench workspace to');
  const spec: GeneratedShape = { count, seed: 42, startMs: Math.floor(now / 1000) * 1000 - count * 1000 - 60_000 };
  let workspace = state.workspaces.find((candidate) => candidate.orgId === org.id && candidate.name === BENCH_WORKSPACE);
  if (!workspace) {
    workspace = { id: seededId('wsp_', 14, createPrng(8_675_309)), orgId: org.id, name: BENCH_WORKSPACE, isPrivate: false };
    state.workspaces.push(workspace);
  }
  const existing = state.tables.findIndex((table) => table.workspaceId === workspace.id && table.name === BENCH_TABLE);
  if (existing >= 0) state.tables.splice(existing, 1);
  const table = generatedTable(spec, org.id, workspace.id);
  state.tables.push(table);
  return table;
}

/** The table for a spec; ids come from a fixed seed so a saved state reloads with the same ids. */
export function generatedTable(spec: GeneratedShape, orgId: string, workspaceId: string): TableRec {
  const random = createPrng(8_675_310);
  const labels: Array<[keyof GeneratedFieldIds, string, FieldRec['type']]> = [
    ['name', 'Name', 'text'],
    ['email', 'Email', 'email'],
    ['amount', 'Amount', 'number'],
    ['active', 'Active', 'boolean'],
    ['signedUp', 'Signed Up', 'date'],
    ['plan', 'Plan', 'select'],
    ['notes', 'Notes', 'text'],
  ];
  const fields: FieldRec[] = labels.map(([key, label, type]) => ({
    id: seededId('fld_', 10, random),
    name: key === 'signedUp' ? 'signed_up' : key,
    label,
    type,
    options: type === 'select' ? GENERATED_PLANS.map(([optionLabel, value]) => ({ label: optionLabel, value })) : null,
    isSystem: false,
  }));
  const ids = Object.fromEntries(labels.map(([key], i) => [key, fields[i]!.id])) as unknown as GeneratedFieldIds;
  return {
    id: seededId('tbl_', 14, random),
    orgId,
    workspaceId,
    name: BENCH_TABLE,
    emoji: ':zap:',
    fields,
    rows: new GeneratedOverlay(new GeneratedRows(spec, ids)),
  };
}
