// Seeded randomness: reproducible seeds, fault draws and lazily generated rows.

/** A source of numbers in [0, 1). */
export type Prng = () => number;

/** mulberry32: small, fast, and good enough for test data and fault draws. */
export function createPrng(seed: number): Prng {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Stateless 32-bit hash of (index, salt): the value of one generated cell, computed on demand. */
export function hash32(index: number, salt: number): number {
  let h = (Math.imul(index ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(salt + 0x27d4eb2f, 0xc2b2ae35)) >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  h = Math.imul(h, 0x846ca68b);
  h ^= h >>> 16;
  return h >>> 0;
}

export function pick<T>(items: readonly T[], random: number): T {
  const item = items[Math.floor(random * items.length) % items.length];
  if (item === undefined) throw new Error('pick from an empty list');
  return item;
}
