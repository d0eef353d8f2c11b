import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import type { InputEncoding } from '../options.js';
import { InputError, type ReadStats } from './input-record.js';

// The input's bytes as UTF-8 (decoded first when a byte-order mark or --encoding says it is not),
// checked as UTF-8 and hashed (the journal knows a file by its hash) on the way (the names --encoding takes: push/options.ts).

const DECODERS: Record<Exclude<InputEncoding, 'utf-8'>, string> = {
  'utf-16le': 'utf-16le',
  'utf-16be': 'utf-16be',
  latin1: 'windows-1252',
  cp1252: 'windows-1252',
};

const NOT_UTF8_HINT = 'save the file as UTF-8, or name its encoding with --encoding latin1 (or cp1252, utf-16le, utf-16be)';

/** The encoding a UTF-16 byte-order mark (Excel's "Unicode text") shows, if the bytes start with one. */
function markedEncoding(head: Buffer): InputEncoding | undefined {
  if (head[0] === 0xff && head[1] === 0xfe) return 'utf-16le';
  if (head[0] === 0xfe && head[1] === 0xff) return 'utf-16be';
  return undefined;
}

/** How the bytes showed their encoding when --encoding did not name it: a UTF-16 byte-order mark, or UTF-16's zero bytes. */
export type EncodingSign = 'mark' | 'zeros';

/**
 * UTF-16 without a byte-order mark, by its zero bytes: text of Latin letters, digits and punctuation has
 * a zero byte in every pair (the second in LE, the first in BE), which UTF-8 text never has.
 */
function unmarkedUtf16(head: Buffer): InputEncoding | undefined {
  const pairs = Math.floor(Math.min(head.length, SNIFF_BYTES) / 2);
  if (pairs < 2) return undefined;
  let evenZeros = 0;
  let oddZeros = 0;
  for (let i = 0; i < pairs * 2; i += 2) {
    if (head[i] === 0) evenZeros += 1;
    if (head[i + 1] === 0) oddZeros += 1;
  }
  const most = pairs * 0.6;
  const few = pairs * 0.1;
  if (oddZeros >= most && evenZeros <= few) return 'utf-16le';
  if (evenZeros >= most && oddZeros <= few) return 'utf-16be';
  return undefined;
}

/** The bytes at the start that the zero-byte test looks at. */
const SNIFF_BYTES = 4096;

/** Says once (on stderr: both reads of a file decode it) that the input is read as UTF-16, and what showed it. */
export function encodingNote(
  input: string,
  say: (line: string) => void,
): (encoding: InputEncoding, sign: EncodingSign | undefined) => void {
  let said = false;
  return (encoding, sign) => {
    if (said || !sign) return;
    said = true;
    const shown = sign === 'mark' ? 'as its byte-order mark shows' : 'as its zero bytes show (it has no byte-order mark)';
    say(`tds: reading ${input === '-' ? 'stdin' : input} as ${encoding.toUpperCase()}, ${shown}; --encoding sets another\n`);
  };
}

/**
 * The bytes as UTF-8: as they are, unless --encoding names another encoding or (without it) they start
 * with a UTF-16 byte-order mark or have UTF-16's zero bytes; `onDecoded` is told the encoding then, and
 * what showed it.
 */
export async function* asUtf8(
  bytes: AsyncIterable<Buffer | string>,
  encoding: InputEncoding | undefined,
  onDecoded?: (encoding: InputEncoding, sign: EncodingSign | undefined) => void,
): AsyncGenerator<Buffer | string> {
  const chunks = bytes[Symbol.asyncIterator]();
  let head = Buffer.alloc(0);
  let ended = false;
  // the first chunk is what the zero-byte test sees (waiting for more would hold up a slow stdin)
  while (head.length < 2 && !ended) {
    const next = await chunks.next();
    if (next.done) ended = true;
    else head = Buffer.concat([head, typeof next.value === 'string' ? Buffer.from(next.value) : next.value]);
  }
  const rest = { [Symbol.asyncIterator]: () => chunks };
  const marked = encoding === undefined ? markedEncoding(head) : undefined;
  const zeros = encoding === undefined && !marked ? unmarkedUtf16(head) : undefined;
  const decoding = encoding ?? marked ?? zeros;
  if (decoding === undefined || decoding === 'utf-8') {
    if (head.length > 0) yield head;
    if (!ended) yield* rest;
    return;
  }
  onDecoded?.(decoding, marked ? 'mark' : zeros ? 'zeros' : undefined);
  // the decoder drops a byte-order mark of its own encoding; bad UTF-16 (a lone surrogate) becomes U+FFFD
  const decoder = new TextDecoder(DECODERS[decoding]);
  yield Buffer.from(decoder.decode(head, { stream: true }));
  if (!ended) {
    for await (const chunk of rest) {
      const text = decoder.decode(typeof chunk === 'string' ? Buffer.from(chunk) : chunk, { stream: true });
      if (text) yield Buffer.from(text);
    }
  }
  const tail = decoder.decode();
  if (tail) yield Buffer.from(tail);
}

/** UTF-8 text of the bytes (BOM dropped); invalid UTF-8 is an input error rather than silent U+FFFD. */
export async function* decodeUtf8(bytes: AsyncIterable<Buffer | string>, source: string, stats: ReadStats): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const hash = createHash('sha256');
  const decode = (chunk: Uint8Array | undefined): string => {
    try {
      return chunk ? decoder.decode(chunk, { stream: true }) : decoder.decode();
    } catch {
      throw new InputError(source, {}, `not valid UTF-8 text (in the bytes before offset ${stats.bytes})`, NOT_UTF8_HINT);
    }
  };
  for await (const chunk of bytes) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    hash.update(buffer);
    stats.bytes += buffer.length;
    const text = decode(buffer);
    if (text) yield text;
  }
  const tail = decode(undefined);
  stats.sha256 = hash.digest('hex');
  if (tail) yield tail;
}

/**
 * The bytes again, each chunk cut at a character boundary and checked to be UTF-8 (csv-parse decodes
 * fields itself, so decoding the whole input here as well would cost a second decoding).
 */
export async function* checkedUtf8(bytes: AsyncIterable<Buffer | string>, source: string, stats: ReadStats): AsyncGenerator<Buffer> {
  const hash = createHash('sha256');
  let carry: Buffer | undefined;
  const fail = (): never => {
    throw new InputError(source, {}, `not valid UTF-8 text (in the bytes before offset ${stats.bytes})`, NOT_UTF8_HINT);
  };
  for await (const chunk of bytes) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    hash.update(buffer);
    stats.bytes += buffer.length;
    const joined = carry ? Buffer.concat([carry, buffer]) : buffer;
    const cut = completeLength(joined);
    carry = cut < joined.length ? joined.subarray(cut) : undefined;
    const whole = joined.subarray(0, cut);
    if (!isUtf8(whole)) fail();
    if (whole.length > 0) yield whole;
  }
  stats.sha256 = hash.digest('hex');
  if (carry) fail();
}

/** Bytes up to the start of a character cut off at the end of the buffer. */
function completeLength(buffer: Buffer): number {
  for (let i = buffer.length - 1; i >= 0 && i >= buffer.length - 4; i -= 1) {
    const byte = buffer[i]!;
    if ((byte & 0xc0) === 0x80) continue;
    const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return buffer.length - i >= length ? buffer.length : i;
  }
  return buffer.length;
}
