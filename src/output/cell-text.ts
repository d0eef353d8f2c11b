export interface CellTextOptions {
  /** Join arrays of scalars with this separator instead of writing them as JSON. */
  join?: string;
}

/** A record value as CSV/TSV text: null → empty, strings as is, everything else as compact JSON. */
export function cellText(value: unknown, options: CellTextOptions = {}): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (options.join !== undefined && Array.isArray(value) && value.every(isScalar)) {
    return value.map((item) => (item === null ? '' : typeof item === 'string' ? item : JSON.stringify(item))).join(options.join);
  }
  return JSON.stringify(value);
}

function isScalar(value: unknown): boolean {
  return value === null || ['string', 'number', 'boolean'].includes(typeof value);
}

const FORMULA_START = /^[=+\-@\t\r]/;

/** Spreadsheet formula-injection guard: text that a spreadsheet would run as a formula gets a leading `'`. */
export function guardFormula(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}
