// The caps of every tool result (docs/cli.md "MCP"): at most --max-rows rows and --max-bytes of text. A
// result is cut at the longest head of its rows that fits both, and says so.

export interface Caps {
  /** rows a result holds at most (--max-rows, 1-1000) */
  maxRows: number;
  /** bytes of a result's JSON text at most (--max-bytes) */
  maxBytes: number;
}

export const DEFAULT_CAPS: Caps = { maxRows: 100, maxBytes: 50_000 };
export const MAX_ROWS_LIMIT = 1000;

/** Which cap cut a result: its rows, or its text. */
export type CutBy = 'rows' | 'bytes';

export interface CappedResult<R> {
  result: R;
  /** rows kept */
  kept: number;
  /** undefined when nothing was cut */
  cutBy?: CutBy;
}

/** Bytes of a value's JSON text, as a tool result's text holds it. */
export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value), 'utf8');
}

/**
 * The result built from the longest head of `rows` that holds at most `caps.maxRows` rows and whose
 * JSON text is at most `caps.maxBytes` bytes. `build(head, cutBy)` makes the result (its envelope may
 * depend on whether, and how, it was cut: a truncation flag, a hint). When even no row does not fit,
 * the result has none.
 */
export function capRows<T, R>(rows: readonly T[], caps: Caps, build: (head: T[], cutBy?: CutBy) => R): CappedResult<R> {
  if (rows.length <= caps.maxRows) {
    const whole = build([...rows]);
    if (jsonBytes(whole) <= caps.maxBytes) return { result: whole, kept: rows.length };
  }
  const head = rows.slice(0, caps.maxRows);
  // an array's JSON text is its items' texts joined by commas: the head that fits is found from the
  // items' sizes and the envelope's, then checked (a count in the envelope may have grown a digit)
  let kept = fittingHead(head, caps.maxBytes - jsonBytes(build([], 'bytes')));
  for (;;) {
    const cutBy: CutBy = kept < head.length ? 'bytes' : 'rows';
    const result = build(head.slice(0, kept), cutBy);
    if (jsonBytes(result) <= caps.maxBytes || kept === 0) return { result, kept, cutBy };
    kept -= 1;
  }
}

/** How many items, from the first, fit in `room` bytes of a JSON array (commas counted). */
function fittingHead(items: readonly unknown[], room: number): number {
  let used = 0;
  for (let i = 0; i < items.length; i += 1) {
    used += jsonBytes(items[i]) + (i > 0 ? 1 : 0);
    if (used > room) return i;
  }
  return items.length;
}
