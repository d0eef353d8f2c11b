import { createReadStream } from 'node:fs';
import { UsageError } from '../../core/index.js';
import { InputError, type InputRecord, type ParsedRecord, type ReadStats, NestConflictError, nestKeys } from './input-record.js';
import { stringifyExact } from './exact-numbers.js';
import { readDelimited } from './read-delimited.js';
import { readJson, readNdjson } from './read-json.js';
import type { InputEncoding, InputFormat } from '../options.js';
import { asUtf8, checkedUtf8, decodeUtf8, type EncodingSign } from './utf8-text.js';

export interface ReadOptions {
  format: InputFormat;
  /** `--types infer` (CSV/TSV) */
  infer: boolean;
  /** `--nest SEP` */
  nest?: string;
  relaxColumns: boolean;
  /** CSV: the delimiter (`,` `;` tab `|`); by default the one the header line shows */
  delimiter?: string;
  /** Told the delimiter found in a CSV's header line */
  onDelimiter?: (delimiter: string) => void;
  /** --encoding: the input's bytes are not UTF-8 (UTF-16 is found by its byte-order mark or zero bytes without it) */
  encoding?: InputEncoding;
  /** Told the encoding the input is decoded from, when it is not UTF-8 */
  onEncoding?: (encoding: InputEncoding, sign: EncodingSign | undefined) => void;
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

/** A read failure (a file removed between the reads, EIO…) as an input error. */
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
export function readRecords(input: AsyncIterable<Buffer | string>, source: string, options: ReadOptions): InputReader {
  const stats: ReadStats = { bytes: 0, records: 0, extraFieldRows: 0 };
  // bytes and the hash are of the UTF-8 text, the same on every read
  const bytes = asUtf8(input, options.encoding, options.onEncoding);
  const parsed =
    options.format === 'csv' || options.format === 'tsv'
      ? readDelimited(checkedUtf8(bytes, source, stats), {
          source,
          delimiter: options.format === 'csv' ? (options.delimiter ?? 'auto') : '\t',
          ...(options.onDelimiter ? { onDetected: options.onDelimiter } : {}),
          infer: options.infer,
          relaxColumns: options.relaxColumns,
          stats,
        })
      : options.format === 'ndjson'
        ? readNdjson(decodeUtf8(bytes, source, stats), source, stats)
        : readJson(decodeUtf8(bytes, source, stats), source, stats);
  return { records: serialized(parsed, source, options.nest), stats };
}

/** Each record's JSON text (its number literals exactly as read), after --nest has nested its keys. */
async function* serialized(
  records: AsyncGenerator<ParsedRecord[]>,
  source: string,
  nest: string | undefined,
): AsyncGenerator<InputRecord[]> {
  for await (const chunk of records) {
    for (const input of chunk) {
      if (nest !== undefined) input.value = nested(input, nest, source);
      (input as InputRecord).json = toJson(input, source);
    }
    yield chunk as InputRecord[];
  }
}

function nested(input: ParsedRecord, sep: string, source: string): ParsedRecord['value'] {
  try {
    return nestKeys(input.value, sep);
  } catch (error) {
    if (error instanceof NestConflictError) throw new InputError(source, { record: input.record }, `--nest: ${error.message}`);
    throw error;
  }
}

/** JSON.stringify recurses: a record nested thousands of levels deep cannot be written (nor, surely, stored). */
function toJson(input: ParsedRecord, source: string): string {
  try {
    return stringifyExact(input.value, input.numbers);
  } catch (error) {
    if (error instanceof RangeError) {
      throw new InputError(source, { record: input.record }, 'the record is nested too deeply to be sent (thousands of levels)');
    }
    throw error;
  }
}

/** What the user should know about how the input was read. */
export function inputWarnings(stats: ReadStats): string[] {
  return stats.extraFieldRows > 0
    ? [`${stats.extraFieldRows} rows had values past the last header column; --relax-columns dropped those values`]
    : [];
}
