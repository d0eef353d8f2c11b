import { encodeFixed, ID_ALPHABET } from './ids.js';
import type { RowSource, StoredCell, StoredRow } from './model.js';
import { hash32 } from './prng.js';
import { FIRST_NAMES, LAST_NAMES, LONG_NOTE, NOTES } from './seed/samples.js';

export interface GeneratedSpec {
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

/**
 * A table of any size that costs no memory: row i is computed from (seed, i) when asked for. Ids are a
 * fixed-width encoding of an affine permutation of i (so id order is known without sorting) plus a hashed tail.
 */
export class GeneratedRows implements RowSource {
  private readonly width: number;
  private readonly multiplier: number;
  private readonly inverse: number;
  private readonly offset: number;

  constructor(
    readonly spec: GeneratedSpec,
    private readonly fields: GeneratedFieldIds,
  ) {
    const n = Math.max(spec.count, 1);
    this.width = Math.max(2, Math.ceil(Math.log(n) / Math.log(64)) + 1);
    this.multiplier = coprimeMultiplier(n);
    this.inverse = modularInverse(this.multiplier, n);
    this.offset = hash32(spec.seed, 1) % n;
  }

  get size(): number {
    return this.spec.count;
  }

  at(index: number): StoredRow {
    return this.row(index);
  }

  atById(index: number): StoredRow {
    const n = this.spec.count;
    return this.row(mulMod(this.inverse, (index - this.offset + n) % n, n));
  }

  private row(i: number): StoredRow {
    const { seed, startMs } = this.spec;
    const h = (salt: number) => hash32(i, seed + salt);
    const rank = mulMod(this.multiplier, i, this.spec.count) + this.offset;
    let tail = '';
    for (let k = 0; k < 3; k += 1) {
      const bits = h(100 + k);
      tail += ID_ALPHABET[bits & 63]! + ID_ALPHABET[(bits >>> 6) & 63]! + ID_ALPHABET[(bits >>> 12) & 63]!;
    }
    const createdAt = startMs + i * 1000;
    const first = FIRST_NAMES[h(1) % FIRST_NAMES.length]!;
    const last = LAST_NAMES[h(2) % LAST_NAMES.length]!;
    const notesRoll = h(7) % 100;
    const cells: Record<string, StoredCell> = {
      [this.fields.name]: { value: `${first} ${last}` },
      [this.fields.email]: { value: `${first.toLowerCase()}.${i}@bench.example` },
      [this.fields.amount]: { value: (h(3) % 1_000_000) / 100 },
      [this.fields.active]: { value: (h(4) & 1) === 1 },
      [this.fields.signedUp]: { value: new Date(createdAt - Math.floor((h(5) / 2 ** 32) * 3 * YEAR_MS)).toISOString() },
      [this.fields.plan]: { value: GENERATED_PLANS[h(6) % GENERATED_PLANS.length]![1] },
    };
    if (notesRoll >= 40) cells[this.fields.notes] = { value: notesRoll >= 98 ? LONG_NOTE : NOTES[notesRoll % NOTES.length]! };
    return {
      id: `r${encodeFixed(rank % this.spec.count, this.width)}${tail}`,
      createdAt,
      updatedAt: createdAt,
      createdByUserId: null,
      cells,
    };
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
