import { randomBytes } from 'node:crypto';
import type { Prng } from '../seed/prng.js';

// Identifiers are opaque to clients: realistic strings that sometimes contain `-` and `_`.

/** The base64url characters in ascending code order, so fixed-width encodings sort like the numbers. */
export const ID_ALPHABET = '-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz';

export function seededId(prefix: string, length: number, random: Prng): string {
  let id = prefix;
  for (let i = 0; i < length; i += 1) id += ID_ALPHABET[Math.floor(random() * 64)];
  return id;
}

/** For ids made while serving (webhook rows), where a seed could repeat ids across restarts. */
export function freshId(prefix: string, length: number): string {
  const bytes = randomBytes(length);
  let id = prefix;
  for (const byte of bytes) id += ID_ALPHABET[byte & 63];
  return id;
}

/** `n` written in `width` alphabet digits, most significant first. */
export function encodeFixed(n: number, width: number): string {
  let out = '';
  let rest = n;
  for (let i = 0; i < width; i += 1) {
    out = ID_ALPHABET[rest % 64] + out;
    rest = Math.floor(rest / 64);
  }
  return out;
}

/** The number `encodeFixed` wrote, or undefined when a character is not of the alphabet. */
export function decodeFixed(text: string): number | undefined {
  let n = 0;
  for (const char of text) {
    const digit = ID_ALPHABET.indexOf(char);
    if (digit < 0) return undefined;
    n = n * 64 + digit;
  }
  return n;
}
