import type { PlainObject } from './nest-keys.js';

/** A record as a reader parsed it. */
export interface ParsedRecord {
  /** 1-based position of the record in the input (CSV/TSV: data rows after the header). */
  record: number;
  value: PlainObject;
  /** JSON input: the number literals a double could not hold, which `value` holds as placeholders (exact-numbers.ts) */
  numbers?: string[];
}

/** A record ready to send: its exact JSON text; with --key, its key or why it is left out. */
export interface InputRecord extends ParsedRecord {
  json: string;
  /** --key: the key as the service compares it (key/keyed-records.ts) */
  key?: string;
  /** --key: not sent, because its key repeats an earlier record's or it has none */
  excluded?: Exclusion;
}

export type Exclusion = { kind: 'duplicate'; of: number; key: string } | { kind: 'keyless'; reason: string };

/** Filled in while reading; `sha256` once the input has ended. */
export interface ReadStats {
  bytes: number;
  records: number;
  /** CSV/TSV with --relax-columns: rows whose non-empty fields past the header were dropped */
  extraFieldRows: number;
  sha256?: string;
}
