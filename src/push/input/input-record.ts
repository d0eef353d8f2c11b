import type { PlainObject } from './nest-keys.js';

/** A record as a reader parsed it. */
export interface ParsedRecord {
  /** 1-based position of the record in the input (CSV/TSV: data rows after the header). */
  record: number;
  value: PlainObject;
  /** JSON input: the number literals a double could not hold, which `value` holds as placeholders (exact-numbers.ts) */
  numbers?: string[];
}

/** A record ready to send: its exact JSON text. */
export interface InputRecord extends ParsedRecord {
  json: string;
}

/** Filled in while reading; `sha256` once the input has ended. */
export interface ReadStats {
  bytes: number;
  records: number;
  /** CSV/TSV with --relax-columns: rows whose non-empty fields past the header were dropped */
  extraFieldRows: number;
  sha256?: string;
}
