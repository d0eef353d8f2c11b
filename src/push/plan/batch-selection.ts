import { UsageError } from '../../core/errors.js';

/** Batch numbers chosen on the command line: every one, or some (`44-46,47`). */
export type BatchSelection = 'all' | readonly BatchRange[];

export interface BatchRange {
  first: number;
  last: number;
}

/** `44-46,47` → the ranges; a flag given without a list is `all`. */
export function parseBatchSelection(flag: string, text: string | true): BatchSelection {
  if (text === true) return 'all';
  const ranges = text.split(',').map((part) => {
    const match = /^\s*(\d+)(?:\s*-\s*(\d+))?\s*$/.exec(part);
    const first = Number(match?.[1]);
    const last = match?.[2] === undefined ? first : Number(match[2]);
    if (!match || first < 1 || last < first || !Number.isSafeInteger(last)) {
      throw new UsageError(`${flag} takes batch numbers such as 44-46,47 (got "${text}")`, {
        hint: `the numbers are the batches the summary lists as uncertain; give the webhook and file before ${flag}, or write ${flag}=BATCHES`,
      });
    }
    return { first, last };
  });
  return ranges;
}

export function selects(selection: BatchSelection | undefined, batch: number): boolean {
  if (selection === undefined) return false;
  return selection === 'all' || selection.some((range) => batch >= range.first && batch <= range.last);
}

/** Whether two selections name a batch in common. */
export function overlaps(a: BatchSelection, b: BatchSelection): boolean {
  if (a === 'all' || b === 'all') return true;
  return a.some((x) => b.some((y) => x.first <= y.last && y.first <= x.last));
}
