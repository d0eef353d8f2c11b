import { UsageError } from '../../core/errors.js';

export interface InputPlace {
  /** 1-based line of the input, when the format has lines. */
  line?: number;
  /** 1-based record number (CSV/TSV: data rows after the header). */
  record?: number;
}

/** Bad input (exit 2), with where it is: `data.csv: line 12: …`. */
export class InputError extends UsageError {
  readonly place: InputPlace;

  constructor(source: string, place: InputPlace, problem: string, hint?: string) {
    const where = [
      place.record !== undefined ? `record ${place.record}` : undefined,
      place.line !== undefined ? `line ${place.line}` : undefined,
    ].filter(Boolean);
    super(`${source}${where.length ? `: ${where.join(', ')}` : ''}: ${problem}`, { hint });
    this.name = 'InputError';
    this.place = place;
  }
}
