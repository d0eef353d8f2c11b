import { murmur3x86_128 } from './murmur3.js';

const WORDS = 3; // 96 bits of the hash kept per ID
const MAX_LOAD = 0.8;
const SEED = 0x7d5;

/**
 * A set of strings (row IDs already written, cursors already followed) in little memory: each is
 * kept as 96 bits of its MurmurHash3 x86_128 hash in an open-addressing table of typed arrays (12
 * bytes a slot, at most 80% full: 15 MB for 1,000,000 IDs when sized for them up front, where a Set
 * of the strings takes 60+ MB). Two different strings are mistaken for one only if their 96 bits
 * agree: for n strings the odds are about n² / 2^97, i.e. 6e-18 for a million and 6e-14 for a
 * hundred million.
 */
export class HashedStringSet {
  private slots: Uint32Array;
  private capacity: number;
  private count = 0;
  private readonly hash = new Uint32Array(4);

  /** `expected`: how many IDs will likely be added (the table's row count), so the table need not grow. */
  constructor(expected = 0) {
    this.capacity = Math.max(64, Math.ceil(expected / MAX_LOAD) + 1);
    this.slots = new Uint32Array(this.capacity * WORDS);
  }

  get size(): number {
    return this.count;
  }

  /** Adds the string; false when it was already there (a duplicate). */
  add(text: string): boolean {
    const h = this.hashOf(text);
    if (!this.insert(h[0]!, h[1]!, h[2]!)) return false;
    this.count += 1;
    if (this.count > this.capacity * MAX_LOAD) this.grow();
    return true;
  }

  has(text: string): boolean {
    const h = this.hashOf(text);
    return !this.isEmpty(this.slotOf(h[0]!, h[1]!, h[2]!));
  }

  private hashOf(text: string): Uint32Array {
    const h = this.hash;
    murmur3x86_128(text, SEED, h);
    // All-zero marks an empty slot; the one hash that is all zero is stored as 1.
    if ((h[0]! | h[1]! | h[2]!) === 0) h[0] = 1;
    return h;
  }

  /** False when the hash is already there. */
  private insert(a: number, b: number, c: number): boolean {
    const at = this.slotOf(a, b, c);
    if (!this.isEmpty(at)) return false;
    this.slots[at] = a;
    this.slots[at + 1] = b;
    this.slots[at + 2] = c;
    return true;
  }

  /** Linear probing from the slot the second word maps to: where the hash is, or the empty slot where it would go. */
  private slotOf(a: number, b: number, c: number): number {
    const slots = this.slots;
    const capacity = this.capacity;
    // (b / 2^32) * capacity: a slot in [0, capacity) without needing a power-of-two size.
    let i = Math.floor(((b >>> 0) * capacity) / 4_294_967_296);
    for (;;) {
      const at = i * WORDS;
      const x = slots[at]!;
      const y = slots[at + 1]!;
      const z = slots[at + 2]!;
      if ((x | y | z) === 0 || (x === a && y === b && z === c)) return at;
      i = i + 1 === capacity ? 0 : i + 1;
    }
  }

  private isEmpty(at: number): boolean {
    return (this.slots[at]! | this.slots[at + 1]! | this.slots[at + 2]!) === 0;
  }

  private grow(): void {
    const old = this.slots;
    this.capacity *= 2;
    this.slots = new Uint32Array(this.capacity * WORDS);
    for (let at = 0; at < old.length; at += WORDS) {
      const a = old[at]!;
      const b = old[at + 1]!;
      const c = old[at + 2]!;
      if ((a | b | c) !== 0) this.insert(a, b, c);
    }
  }
}
