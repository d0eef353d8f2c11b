import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import { InputError, type ReadStats } from './input-record.js';

// The input's bytes checked as UTF-8 and hashed (the journal knows a file by its hash) on the way.

/** UTF-8 text of the bytes (BOM dropped); invalid UTF-8 is an input error rather than silent U+FFFD. */
export async function* decodeUtf8(bytes: AsyncIterable<Buffer | string>, source: string, stats: ReadStats): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const hash = createHash('sha256');
  const decode = (chunk: Uint8Array | undefined): string => {
    try {
      return chunk ? decoder.decode(chunk, { stream: true }) : decoder.decode();
    } catch {
      throw new InputError(source, {}, `not valid UTF-8 text (in the bytes before offset ${stats.bytes})`, 'save the file as UTF-8');
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
 * fields itself, so decoding the whole input here as well would cost a second pass).
 */
export async function* checkedUtf8(bytes: AsyncIterable<Buffer | string>, source: string, stats: ReadStats): AsyncGenerator<Buffer> {
  const hash = createHash('sha256');
  let carry: Buffer | undefined;
  const fail = (): never => {
    throw new InputError(source, {}, `not valid UTF-8 text (in the bytes before offset ${stats.bytes})`, 'save the file as UTF-8');
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
