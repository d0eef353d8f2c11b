import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { UsageError } from '../cli/errors.js';
import { InputError } from './input-error.js';
import type { InputFormat } from './input-format.js';
import { NestConflictError, nestKeys, type PlainObject } from './nest-keys.js';
import { readDelimited } from './read-delimited.js';
import { readJson } from './read-json.js';
import { readNdjson } from './read-ndjson.js';

export interface InputRecord {
  /** 1-based position of the record in the input (CSV/TSV: data rows after the header). */
  record: number;
  value: PlainObject;
}

export interface ReadOptions {
  format: InputFormat;
  /** `--types infer` (CSV/TSV) */
  infer: boolean;
  /** `--nest SEP` */
  nest?: string;
  relaxColumns: boolean;
}

/** Filled in while reading; `sha256` once the input has ended. */
export interface ReadStats {
  bytes: number;
  records: number;
  /** CSV/TSV with --relax-columns: rows whose non-empty fields past the header were dropped */
  extraFieldRows: number;
  sha256?: string;
}

export interface InputReader {
  records: AsyncGenerator<InputRecord[]>;
  stats: ReadStats;
}

const CHUNK_BYTES = 64 * 1024;

/** Streams the records of a file, or of stdin for `-`, in chunks as they are parsed. */
export function readInput(path: string, stdin: NodeJS.ReadableStream, options: ReadOptions): InputReader {
  const source = path === '-' ? 'stdin' : path;
  const bytes = path === '-' ? stdin : createReadStream(path, { highWaterMark: CHUNK_BYTES });
  return readRecords(readable(bytes as AsyncIterable<Buffer | string>, source), source, options);
}

/** A read failure (a file removed between the passes, EIO…) as an input error. */
async function* readable(bytes: AsyncIterable<Buffer | string>, source: string): AsyncGenerator<Buffer | string> {
  try {
    yield* bytes;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code) throw new UsageError(`cannot read ${source} (${code})`, { cause: error });
    throw error;
  }
}

/** The records of a byte stream (tests feed strings and buffers directly). */
export function readRecords(bytes: AsyncIterable<Buffer | string>, source: string, options: ReadOptions): InputReader {
  const stats: ReadStats = { bytes: 0, records: 0, extraFieldRows: 0 };
  const parsed =
    options.format === 'csv' || options.format === 'tsv'
      ? readDelimited(checkedUtf8(bytes, source, stats), {
          source,
          delimiter: options.format === 'csv' ? ',' : '\t',
          infer: options.infer,
          relaxColumns: options.relaxColumns,
          stats,
        })
      : options.format === 'ndjson'
        ? readNdjson(decodeUtf8(bytes, source, stats), source, stats)
        : readJson(decodeUtf8(bytes, source, stats), source, stats);
  return { records: options.nest ? nested(parsed, options.nest, source) : parsed, stats };
}

/** UTF-8 text of the bytes (BOM dropped); invalid UTF-8 is an input error rather than silent U+FFFD. */
async function* decodeUtf8(bytes: AsyncIterable<Buffer | string>, source: string, stats: ReadStats): AsyncGenerator<string> {
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
async function* checkedUtf8(bytes: AsyncIterable<Buffer | string>, source: string, stats: ReadStats): AsyncGenerator<Buffer> {
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

async function* nested(records: AsyncGenerator<InputRecord[]>, sep: string, source: string): AsyncGenerator<InputRecord[]> {
  for await (const chunk of records) {
    for (const input of chunk) {
      try {
        input.value = nestKeys(input.value, sep);
      } catch (error) {
        if (error instanceof NestConflictError) throw new InputError(source, { record: input.record }, `--nest: ${error.message}`);
        throw error;
      }
    }
    yield chunk;
  }
}

/** What the user should know about how the input was read. */
export function inputWarnings(stats: ReadStats): string[] {
  return stats.extraFieldRows > 0
    ? [`${stats.extraFieldRows} rows had values past the last header column; --relax-columns dropped those values`]
    : [];
}
