// Records as the bytes of a data format (csv, tsv, ndjson, json): a page at a time, where an export's
// checkpoint needs the byte count after each page (createPageEncoder), or streamed to a sink with
// backpressure (createRecordWriter, on the same encoder).

import { stringify } from 'csv-stringify/sync';
import type { OutputRecord } from '../records/index.js';
import type { DataFormat } from './format.js';

export interface PageEncoderOptions {
  format: DataFormat;
  /** Record keys in output order (the CSV/TSV header). */
  keys: string[];
  /** CSV/TSV only. */
  bom?: boolean;
  crlf?: boolean;
  join?: string;
  safeFormulas?: boolean;
  maxCellChars?: number;
  /** CSV only: the field separator instead of `,` (`;` for a spreadsheet of a decimal-comma locale). */
  delimiter?: string;
  /** CSV/TSV: numbers with a decimal comma (3,5), as a spreadsheet of such a locale reads them. */
  decimalComma?: boolean;
  /** CSV/TSV for a spreadsheet: lists of plain values joined with `, ` (unless `join`), and members (the values of these keys) by name. */
  spreadsheet?: { members: ReadonlySet<string> };
}

/**
 * Output in whole-page pieces, so that after each page the exact byte count of the output is known
 * (the checkpoint of a resumable export) and a resumed export can continue a file: the pieces put
 * together are the output of one pass over every record. createRecordWriter streams through it.
 */
export interface PageEncoder {
  /** What comes before the first record: the CSV/TSV header (after a BOM), `[` for JSON. */
  prelude(): Buffer;
  /** The records of one page as they follow `rowsBefore` records; `onCut(key)` for each cell cut at maxCellChars. */
  encode(records: readonly OutputRecord[], rowsBefore: number, onCut?: (key: string) => void): Buffer;
  /** What ends the output after `rowsTotal` records. */
  epilogue(rowsTotal: number): Buffer;
}

const EMPTY = Buffer.alloc(0);

export function createPageEncoder(options: PageEncoderOptions): PageEncoder {
  return options.format === 'csv' || options.format === 'tsv' ? delimitedEncoder(options) : jsonEncoder(options);
}

/** NDJSON: one object a line. JSON: `[`, then each object on its own line, `]`. */
function jsonEncoder(options: PageEncoderOptions): PageEncoder {
  const toJson = recordToJson(options.keys);
  const array = options.format === 'json';
  return {
    prelude: () => (array ? Buffer.from('[') : EMPTY),
    encode(records, rowsBefore) {
      let text = '';
      records.forEach((record, i) => {
        text += array ? `${rowsBefore + i === 0 ? '\n' : ',\n'}${toJson(record)}` : `${toJson(record)}\n`;
      });
      return Buffer.from(text);
    },
    epilogue: (rowsTotal) => (array ? Buffer.from(rowsTotal === 0 ? ']\n' : '\n]\n') : EMPTY),
  };
}

/**
 * CSV/TSV: cells rendered by cellText, cut at maxCellChars, formula-guarded, and quoted by
 * csv-stringify. A field with no delimiter, quote, CR or LF is written as is (csv-stringify writes it
 * unchanged too); only fields that need RFC 4180 quoting go through it, which keeps the common case
 * several times faster.
 */
function delimitedEncoder(options: PageEncoderOptions): PageEncoder {
  const delimiter = options.format === 'tsv' ? '\t' : (options.delimiter ?? ',');
  const recordDelimiter = options.crlf ? '\r\n' : '\n';
  const csvOptions = {
    delimiter,
    record_delimiter: recordDelimiter,
    // csv-stringify quotes a field holding the record delimiter, but not a lone \n or \r of the other style.
    quoted_match: /[\r\n]/,
  };
  const needsQuoting = new RegExp(`[${delimiter.replace(/[\\^\]-]/g, '\\$&')}"\\r\\n]`);
  const field = (text: string): string =>
    needsQuoting.test(text) ? stringify([[text]], csvOptions).slice(0, -recordDelimiter.length) : text;
  const { keys, maxCellChars, safeFormulas } = options;
  const { spreadsheet } = options;
  const textOptions: CellTextOptions = {
    ...(options.join !== undefined ? { join: options.join } : spreadsheet ? { join: ', ' } : {}),
    ...(options.decimalComma ? { decimalComma: true } : {}),
  };
  const cell = (record: OutputRecord, key: string, onCut?: (key: string) => void): string => {
    const value = record[key];
    let text = spreadsheet?.members.has(key) ? memberNames(value) : cellText(value, textOptions);
    if (maxCellChars !== undefined && text.length > maxCellChars) {
      text = text.slice(0, maxCellChars);
      onCut?.(key);
    }
    return field(safeFormulas && typeof value === 'string' ? guardFormula(text) : text);
  };
  return {
    prelude: () => Buffer.from(stringify([keys], { ...csvOptions, bom: Boolean(options.bom) })),
    encode(records, _rowsBefore, onCut) {
      let text = '';
      for (const record of records) {
        let line = '';
        for (let k = 0; k < keys.length; k += 1) line += (k === 0 ? '' : delimiter) + cell(record, keys[k]!, onCut);
        text += line + recordDelimiter;
      }
      return text ? Buffer.from(text) : EMPTY;
    },
    epilogue: () => EMPTY,
  };
}

export interface CellTextOptions {
  /** Join arrays of scalars with this separator instead of writing them as JSON. */
  join?: string;
  /** Numbers with a decimal comma (3,5). */
  decimalComma?: boolean;
}

/** A record value as CSV/TSV text: null → empty, strings as is, everything else as compact JSON. */
export function cellText(value: unknown, options: CellTextOptions = {}): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && options.decimalComma) return String(value).replace('.', ',');
  if (options.join !== undefined && Array.isArray(value) && value.every(isScalar)) {
    return value.map((item) => (item === null ? '' : typeof item === 'string' ? item : cellText(item, options))).join(options.join);
  }
  return JSON.stringify(value);
}

/** A member (or a list of them) by name for a spreadsheet: its `name`, else its email or ID; anything else as cellText. */
function memberNames(value: unknown): string {
  const one = (member: unknown): string | undefined => {
    if (!member || typeof member !== 'object' || Array.isArray(member)) return undefined;
    const { name, email, id } = member as Record<string, unknown>;
    const label = [name, email, id].find((part) => typeof part === 'string' && part !== '');
    return label as string | undefined;
  };
  const members = Array.isArray(value) ? value.map(one) : [one(value)];
  return members.every((name) => name !== undefined) && value !== null ? members.join(', ') : cellText(value);
}

function isScalar(value: unknown): boolean {
  return value === null || ['string', 'number', 'boolean'].includes(typeof value);
}

const FORMULA_START = /^[=+\-@\t\r]/;

/** Spreadsheet formula-injection guard: text that a spreadsheet would run as a formula gets a leading `'`. */
export function guardFormula(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}

// JSON text of a record with its keys in the plan's order. JSON.stringify writes keys that look
// like array indexes ("2024") first whatever the insertion order, so when a key does, the object
// is written key by key instead.

const ARRAY_INDEX = /^(?:0|[1-9]\d{0,9})$/;

export type RecordToJson = (record: OutputRecord) => string;

export function recordToJson(keys: readonly string[]): RecordToJson {
  const reordered = keys.some((key) => ARRAY_INDEX.test(key) && Number(key) < 2 ** 32 - 1);
  if (!reordered) return (record) => JSON.stringify(record);
  const prefixes = keys.map((key, i) => `${i === 0 ? '{' : ','}${JSON.stringify(key)}:`);
  return (record) => {
    let text = '';
    for (let i = 0; i < keys.length; i += 1) text += prefixes[i]! + (JSON.stringify(record[keys[i]!]) ?? 'null');
    return keys.length === 0 ? '{}' : `${text}}`;
  };
}

export interface RecordWriterOptions {
  format: DataFormat;
  /** Keys in output order; the CSV/TSV header. NDJSON/JSON write each record's own keys. */
  columns: string[];
  /** CSV/TSV: UTF-8 byte order mark first (spreadsheet programs). */
  bom?: boolean;
  /** CSV/TSV: CRLF line ends. */
  crlf?: boolean;
  /** CSV/TSV: join arrays of scalars with this separator. */
  join?: string;
  /** CSV/TSV: prefix text that starts like a formula with `'`. */
  safeFormulas?: boolean;
  /** CSV/TSV: cut cells longer than this many characters; each cut is reported to `onCut`. */
  maxCellChars?: number;
  onCut?: (column: string) => void;
}

export interface RecordWriter {
  /** Resolves when the sink has room again; await it to keep memory flat. */
  write(record: OutputRecord): Promise<void> | undefined;
  end(): Promise<void>;
}

const RECORDS_PER_CHUNK = 256;

/** Streams records to `sink` in the chosen format, a chunk of records at a time, with backpressure. */
export function createRecordWriter(sink: NodeJS.WritableStream, options: RecordWriterOptions): RecordWriter {
  const encoder = createPageEncoder({ ...options, keys: options.columns });
  let held: OutputRecord[] = [];
  let written = 0;
  const send = (chunk: Buffer): Promise<void> | undefined => {
    if (chunk.length === 0 || sink.write(chunk)) return undefined;
    return new Promise((resolve) => sink.once('drain', () => resolve()));
  };
  const flush = (): Promise<void> | undefined => {
    const records = held;
    held = [];
    const chunk = encoder.encode(records, written, options.onCut);
    written += records.length;
    return send(chunk);
  };
  const started = send(encoder.prelude());
  return {
    write(record) {
      held.push(record);
      return held.length >= RECORDS_PER_CHUNK ? flush() : undefined;
    },
    async end() {
      await started;
      await flush();
      await send(encoder.epilogue(written));
    },
  };
}
