// MurmurHash3 x86_128 (Austin Appleby's reference algorithm) over the UTF-8 bytes of a string.
// Not cryptographic, but a well-mixed 128-bit hash: what the row ID set needs to tell IDs apart.

const C1 = 0x239b961b;
const C2 = 0xab0e9789;
const C3 = 0x38b34ae5;
const C4 = 0xa1e38b93;

const encoder = new TextEncoder();
let scratch = new Uint8Array(256);
const tail4 = new Int32Array(4);

/** Writes the 128-bit hash of `text` into `out[0..3]` (h1..h4, as the reference prints them). */
export function murmur3x86_128(text: string, seed: number, out: Uint32Array): void {
  const length = utf8(text);
  const bytes = scratch;
  let h1 = seed >>> 0;
  let h2 = h1;
  let h3 = h1;
  let h4 = h1;
  const blocks = length & ~15;
  for (let i = 0; i < blocks; i += 16) {
    let k1 = word(bytes, i);
    let k2 = word(bytes, i + 4);
    let k3 = word(bytes, i + 8);
    let k4 = word(bytes, i + 12);

    k1 = Math.imul(rotl(Math.imul(k1, C1), 15), C2);
    h1 ^= k1;
    h1 = (Math.imul(rotl(h1, 19) + h2, 5) + 0x561ccd1b) | 0;
    k2 = Math.imul(rotl(Math.imul(k2, C2), 16), C3);
    h2 ^= k2;
    h2 = (Math.imul(rotl(h2, 17) + h3, 5) + 0x0bcaa747) | 0;
    k3 = Math.imul(rotl(Math.imul(k3, C3), 17), C4);
    h3 ^= k3;
    h3 = (Math.imul(rotl(h3, 15) + h4, 5) + 0x96cd1c35) | 0;
    k4 = Math.imul(rotl(Math.imul(k4, C4), 18), C1);
    h4 ^= k4;
    h4 = (Math.imul(rotl(h4, 13) + h1, 5) + 0x32ac3b17) | 0;
  }

  const tail = length - blocks;
  if (tail > 0) {
    const k = tailWords(bytes, blocks, tail);
    if (tail > 12) h4 ^= Math.imul(rotl(Math.imul(k[3]!, C4), 18), C1);
    if (tail > 8) h3 ^= Math.imul(rotl(Math.imul(k[2]!, C3), 17), C4);
    if (tail > 4) h2 ^= Math.imul(rotl(Math.imul(k[1]!, C2), 16), C3);
    h1 ^= Math.imul(rotl(Math.imul(k[0]!, C1), 15), C2);
  }

  h1 ^= length;
  h2 ^= length;
  h3 ^= length;
  h4 ^= length;
  h1 = (h1 + h2 + h3 + h4) | 0;
  h2 = (h2 + h1) | 0;
  h3 = (h3 + h1) | 0;
  h4 = (h4 + h1) | 0;
  h1 = fmix(h1);
  h2 = fmix(h2);
  h3 = fmix(h3);
  h4 = fmix(h4);
  h1 = (h1 + h2 + h3 + h4) | 0;
  h2 = (h2 + h1) | 0;
  h3 = (h3 + h1) | 0;
  h4 = (h4 + h1) | 0;
  out[0] = h1;
  out[1] = h2;
  out[2] = h3;
  out[3] = h4;
}

/** The last 1 to 15 bytes as four little-endian words (in a shared array, so no allocation per hash). */
function tailWords(bytes: Uint8Array, start: number, tail: number): Int32Array {
  const k = tail4.fill(0);
  for (let j = tail - 1; j >= 0; j -= 1) k[j >> 2]! |= bytes[start + j]! << ((j & 3) * 8);
  return k;
}

/** Encodes `text` into `scratch` (ASCII without TextEncoder) and returns the byte length. */
function utf8(text: string): number {
  if (scratch.length < text.length * 3) scratch = new Uint8Array(text.length * 3);
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code > 0x7f) return encoder.encodeInto(text, scratch).written;
    scratch[i] = code;
  }
  return text.length;
}

function word(bytes: Uint8Array, i: number): number {
  return bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24);
}

function rotl(x: number, r: number): number {
  return (x << r) | (x >>> (32 - r));
}

function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h;
}
