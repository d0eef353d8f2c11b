import { describe, expect, it } from 'vitest';
import { murmur3x86_128 } from '../../src/collections/murmur3.js';

function hex(text: string, seed: number): string {
  const out = new Uint32Array(4);
  murmur3x86_128(text, seed, out);
  return [...out].map((word) => word.toString(16).padStart(8, '0')).join('');
}

describe('murmur3x86_128', () => {
  // The reference vectors of PeterScott/murmur3 test.c (printed as h1..h4 in hex).
  it.each([
    [123, 'Hello, world!', '61c9129e5a1aacd7a41621629e37c886'],
    [321, 'Hello, world!', 'd5fbdcb3c26c4193045880c5a7170f0f'],
    [123, 'xxxxxxxxxxxxxxxxxxxxxxxxxxxx', '5e40bab278825a164cf929d31fec6047'],
    [123, '', 'fedc524526f3e79926f3e79926f3e799'],
  ])('seed %i of %j → %s', (seed, text, expected) => expect(hex(text, seed)).toBe(expected));

  it('tells non-ASCII strings apart from their look-alikes', () => {
    expect(hex('é', 7)).not.toBe(hex('\u00c3\u00a9', 7)); // "é" is C3 A9 in UTF-8
    expect(hex('ünï', 0)).not.toBe(hex('uni', 0));
  });

  it('gives the same hash before and after a long string grew its scratch buffer', () => {
    const before = hex('row_42', 1);
    const long = '山田'.repeat(500);
    expect(hex(long, 1)).not.toBe(hex(long.slice(1), 1));
    expect(hex('row_42', 1)).toBe(before);
  });
});
