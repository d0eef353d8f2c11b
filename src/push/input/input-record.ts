import type { PlainObject } from './nest-keys.js';

export interface InputRecord {
  /** 1-based position of the record in the input (CSV/TSV: data rows after the header). */
  record: number;
  value: PlainObject;
}

/** Filled in while reading; `sha256` once the input has ended. */
export interface ReadStats {
  bytes: number;
  records: number;
  /** CSV/TSV with --relax-columns: rows whose non-empty fields past the header were dropped */
  extraFieldRows: number;
  sha256?: string;
}
