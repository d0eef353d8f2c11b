export interface RecordRange {
  first: number;
  last: number;
}

/** Sorted, with touching and overlapping ranges merged. */
export function mergeRanges(ranges: readonly RecordRange[]): RecordRange[] {
  const sorted = [...ranges].sort((a, b) => a.first - b.first);
  const merged: RecordRange[] = [];
  for (const range of sorted) {
    const previous = merged[merged.length - 1];
    if (previous && range.first <= previous.last + 1) previous.last = Math.max(previous.last, range.last);
    else merged.push({ ...range });
  }
  return merged;
}

/** Record numbers as ranges: [1, 2, 3, 7] → 1–3, 7. */
export function rangesOf(records: readonly number[]): RecordRange[] {
  return mergeRanges(records.map((record) => ({ first: record, last: record })));
}

/** `1001–1500, 2001 and 3 more` */
export function formatRanges(ranges: readonly RecordRange[], max = 8): string {
  const merged = mergeRanges(ranges);
  const shown = merged.slice(0, max).map(({ first, last }) => (first === last ? String(first) : `${first}–${last}`));
  const more = merged.length - shown.length;
  return more > 0 ? `${shown.join(', ')} and ${more} more` : shown.join(', ');
}

/** `record 7` or `records 1–3`. */
export function recordsText({ first, last }: RecordRange): string {
  return first === last ? `record ${first}` : `records ${first}–${last}`;
}
