// push/options.ts: the push's start-up surface, what `tds push`'s definition reads: the input formats,
// --encoding's names and parser, how long a completed push's journal is kept, and the most requests in
// flight. Light (none of the pipeline): index.ts is the whole surface.

import { UsageError } from '../core/options.js';

export { MAX_IN_FLIGHT } from './deliver/in-flight.js';

/** --input-format: what the input is (by default, from the file's extension). */
export const INPUT_FORMATS = ['csv', 'tsv', 'ndjson', 'json'] as const;
export type InputFormat = (typeof INPUT_FORMATS)[number];

/** How long a completed push's journal is kept after its last line: the same push run again within it sends nothing twice. */
export const JOURNAL_KEEP_DAYS = 7;

/** --encoding: what the input's bytes are (latin1 is read as cp1252, its superset, as browsers read it). */
export const INPUT_ENCODINGS = ['utf-8', 'utf-16le', 'utf-16be', 'latin1', 'cp1252'] as const;
export type InputEncoding = (typeof INPUT_ENCODINGS)[number];

/** The names --encoding takes, ignoring case: each encoding's own and its usual aliases (Node's and the WHATWG's). */
const ENCODING_NAMES: Record<string, InputEncoding> = {
  'utf-8': 'utf-8',
  utf8: 'utf-8',
  'utf-16le': 'utf-16le',
  utf16le: 'utf-16le',
  'ucs-2': 'utf-16le',
  ucs2: 'utf-16le',
  'utf-16be': 'utf-16be',
  utf16be: 'utf-16be',
  latin1: 'latin1',
  'iso-8859-1': 'latin1',
  iso88591: 'latin1',
  'iso8859-1': 'latin1',
  cp1252: 'cp1252',
  'windows-1252': 'cp1252',
};

/** --encoding NAME: the encoding it names, ignoring case and with its aliases; anything else is a usage error. */
export function parseInputEncoding(raw: string): InputEncoding {
  const encoding = ENCODING_NAMES[raw.trim().toLowerCase()];
  if (encoding === undefined) {
    throw new UsageError(`--encoding ${JSON.stringify(raw)} is not an encoding tds reads`, {
      hint: 'name one of utf-8, utf-16le (ucs2), utf-16be, latin1 (iso-8859-1), cp1252 (windows-1252), in any case',
    });
  }
  return encoding;
}
