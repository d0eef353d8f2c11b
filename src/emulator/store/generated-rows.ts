import { firstIndex } from './row-list.js';
import {
  decodeFixed,
  encodeFixed,
  ID_ALPHABET,
  compareCreated,
  compareIds,
  type RowKey,
  type RowSource,
  type StoredCell,
  type StoredRow,
} from './model.js';
import { hash32 } from '../seed/prng.js';
import { FIRST_NAMES, LAST_NAMES, LONG_NOTE, NOTES } from '../seed/fake-values.js';

export interface GeneratedShape {
  count: number;
  seed: number;
  /** createdAt of row 0; row i is i seconds later. */
  startMs: number;
}

/** Field ids of the generated columns, in schema order. */
export interface GeneratedFieldIds {
  name: string;
  email: string;
  amount: string;
  active: string;
  signedUp: string;
  plan: string;
  notes: string;
}

export const GENERATED_PLANS = [
  ['Free', 'free'],
  ['Starter', 'starter'],
  ['Pro', 'pro'],
  ['Enterprise', 'enterprise'],
] as const;

const YEAR_MS = 365 * 86_400_000;

/** Where a lazily computed cells object keeps its row index (a symbol, so `for … in` does not list it). */
const ROW_INDEX = Symbol('row index');

/**
 * A table of any size that costs no memory: row i is computed from (seed, i) when asked for, and each of its
 * cells only when read, so a filter on one column scans a million rows in milliseconds. Ids are a fixed-width
 * encoding of an affine permutation of i (so id order is known without sorting) plus a hashed tail.
 */
export class GeneratedRows implements RowSource {
  private readonly width: number;
  private readonly multiplier: number;
  private readonly inverse: number;
  private readonly offset: number;
  /** Cells of row i: one getter per column on the prototype, computing that cell when read. */
  private readonly Cells: new (index: number) => Record<string, StoredCell>;

  constructor(
    readonly spec: GeneratedShape,
    fields: GeneratedFieldIds,
  ) {
    const n = Math.max(spec.count, 1);
    this.width = Math.max(2, Math.ceil(Math.log(n) / Math.log(64)) + 1);
    this.multiplier = coprimeMultiplier(n);
    this.inverse = modularInverse(this.multiplier, n);
    this.offset = hash32(spec.seed, 1) % n;
    const cell = (key: keyof GeneratedFieldIds, index: number) => this.cell(key, index);
    class Cells {
      [ROW_INDEX]: number;
      constructor(index: number) {
        this[ROW_INDEX] = index;
      }
    }
    for (const key of Object.keys(fields) as Array<keyof GeneratedFieldIds>) {
      Object.defineProperty(Cells.prototype, fields[key], {
        enumerable: true,
        get(this: Cells) {
          return cell(key, this[ROW_INDEX]);
        },
      });
    }
    this.Cells = Cells as unknown as new (index: number) => Record<string, StoredCell>;
  }

  get size(): number {
    return this.spec.count;
  }

  at(index: number): GeneratedRow {
    return new GeneratedRow(this, index, this.spec.startMs + index * 1000, new this.Cells(index));
  }

  atById(index: number): GeneratedRow {
    const n = this.spec.count;
    return this.at(mulMod(this.inverse, (index - this.offset + n) % n, n));
  }

  *newest(before?: RowKey): Iterable<GeneratedRow> {
    for (let i = this.indexBefore(before) - 1; i >= 0; i -= 1) yield this.at(i);
  }

  *byId(afterId?: string): Iterable<GeneratedRow> {
    for (let k = this.rankAfter(afterId); k < this.spec.count; k += 1) yield this.atById(k);
  }

  /** How many rows sort strictly after `before` newest first (all of them without it): rows 0 to that - 1. */
  indexBefore(before?: RowKey): number {
    const n = this.spec.count;
    return before === undefined ? n : firstIndex(n, (i) => compareCreated(this.at(i), before) >= 0);
  }

  /** The first rank (position in id order) whose id is greater than `afterId` (0 without it). */
  rankAfter(afterId?: string): number {
    return afterId === undefined ? 0 : firstIndex(this.spec.count, (k) => compareIds(this.idOf(this.indexAtRank(k)), afterId) > 0);
  }

  /** The index of the row with this id, or undefined when no row of this table has it. */
  indexOf(id: string): number | undefined {
    const n = this.spec.count;
    if (id.length !== 1 + this.width + 9 || id[0] !== 'r') return undefined;
    const rank = decodeFixed(id.slice(1, 1 + this.width));
    if (rank === undefined || rank >= n) return undefined;
    const index = this.indexAtRank(rank);
    return this.idOf(index) === id ? index : undefined;
  }

  /**
   * Cells computed from any index, past the table's own rows too: rows that churn adds to a computed table
   * cost one small object each, not their cells. The getters have no setters: copy the cells before editing.
   */
  cellsAt(index: number): Record<string, StoredCell> {
    return new this.Cells(index);
  }

  private indexAtRank(rank: number): number {
    const n = this.spec.count;
    return mulMod(this.inverse, (rank - this.offset + n) % n, n);
  }

  /** The id of row i (a method, so that rows the page does not return never pay for it). */
  idOf(i: number): string {
    const rank = mulMod(this.multiplier, i, this.spec.count) + this.offset;
    let tail = '';
    for (let k = 0; k < 3; k += 1) {
      const bits = hash32(i, this.spec.seed + 100 + k);
      tail += ID_ALPHABET[bits & 63]! + ID_ALPHABET[(bits >>> 6) & 63]! + ID_ALPHABET[(bits >>> 12) & 63]!;
    }
    return `r${encodeFixed(rank % this.spec.count, this.width)}${tail}`;
  }

  private cell(key: keyof GeneratedFieldIds, i: number): StoredCell | undefined {
    const seed = this.spec.seed;
    switch (key) {
      case 'name':
        return { value: `${firstName(i, seed)} ${LAST_NAMES[hash32(i, seed + 2) % LAST_NAMES.length]!}` };
      case 'email':
        return { value: `${firstName(i, seed).toLowerCase()}.${i}@bench.example` };
      case 'amount':
        return { value: (hash32(i, seed + 3) % 1_000_000) / 100 };
      case 'active':
        return { value: (hash32(i, seed + 4) & 1) === 1 };
      case 'signedUp':
        return { value: new Date(this.spec.startMs + i * 1000 - Math.floor((hash32(i, seed + 5) / 2 ** 32) * 3 * YEAR_MS)).toISOString() };
      case 'plan':
        return { value: GENERATED_PLANS[hash32(i, seed + 6) % GENERATED_PLANS.length]![1] };
      case 'notes': {
        const roll = hash32(i, seed + 7) % 100;
        return roll >= 40 ? { value: roll >= 98 ? LONG_NOTE : NOTES[roll % NOTES.length]! } : undefined;
      }
    }
  }
}

function firstName(i: number, seed: number): string {
  return FIRST_NAMES[hash32(i, seed + 1) % FIRST_NAMES.length]!;
}

/** A row computed from its index; read-only (an edit keeps a copy, see generated-overlay.ts). */
export class GeneratedRow implements StoredRow {
  readonly updatedAt: number;
  readonly createdByUserId = null;

  constructor(
    private readonly table: GeneratedRows,
    readonly index: number,
    readonly createdAt: number,
    readonly cells: Record<string, StoredCell>,
  ) {
    this.updatedAt = createdAt;
  }

  get id(): string {
    return this.table.idOf(this.index);
  }
}

function coprimeMultiplier(n: number): number {
  for (const candidate of [1_000_003, 999_983, 7_919, 104_729, 15_485_863, 1]) {
    const a = candidate % n;
    if (a > 0 && gcd(a, n) === 1) return a;
  }
  return 1;
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

function modularInverse(a: number, n: number): number {
  if (n === 1) return 0;
  let [oldR, r] = [a, n];
  let [oldS, s] = [1, 0];
  while (r !== 0) {
    const q = Math.floor(oldR / r);
    [oldR, r] = [r, oldR - q * r];
    [oldS, s] = [s, oldS - q * s];
  }
  return ((oldS % n) + n) % n;
}

/** (a * b) mod n without losing precision for n up to 2^32. */
function mulMod(a: number, b: number, n: number): number {
  if (n <= 1) return 0;
  const high = Math.floor(b / 65_536);
  const low = b % 65_536;
  return (((a * high) % n) * 65_536 + a * low) % n;
}
