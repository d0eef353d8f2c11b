import { UsageError } from '../core/index.js';

// A bad filter (--where, --filter or the query body it becomes): exit 2, with the place marked.

export interface FilterLocation {
  /** Which input: `--where`, `--where #2`, `--filter`. */
  source?: string;
  /** Where inside a JSON value, e.g. `rules[2].value` or `filters.rules[0]`. */
  path?: string;
  /** The --where text, shown with the place marked. */
  expression?: string;
  /** Offset of the place in `expression` (a string index). */
  position?: number;
  /** How many string units to underline (default 1). */
  length?: number;
}

export interface FilterErrorOptions {
  hint?: string;
  location?: FilterLocation;
}

export class FilterError extends UsageError {
  /** The message without its location. */
  readonly problem: string;
  readonly location: FilterLocation;

  constructor(problem: string, options: FilterErrorOptions = {}) {
    const location = options.location ?? {};
    super(formatMessage(problem, location), { hint: options.hint });
    this.name = 'FilterError';
    this.problem = problem;
    this.location = location;
  }

  /** The same problem, placed (or re-placed) by a caller that knows where the text came from. */
  at(location: FilterLocation): FilterError {
    return new FilterError(this.problem, { hint: this.hint, location: { ...this.location, ...location } });
  }
}

/** Runs `fn`; a FilterError it throws is placed at `location`. */
export function placed<T>(location: FilterLocation, fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    throw error instanceof FilterError ? error.at(location) : error;
  }
}

/** 1-based character number (code points, as a person counts) of a string index. */
export function characterNumber(text: string, position: number): number {
  return Array.from(text.slice(0, position)).length + 1;
}

function formatMessage(problem: string, location: FilterLocation): string {
  const head = [location.source, location.path].filter(Boolean).join(': ');
  const message = head ? `${head}: ${problem}` : problem;
  const { expression, position } = location;
  if (expression === undefined || position === undefined) return message;
  const where = position >= expression.length ? 'at the end of the expression' : `at character ${characterNumber(expression, position)}`;
  const { line, caret } = markPlace(expression, position, location.length ?? 1);
  return `${message} (${where}):\n  ${line}\n  ${caret}`;
}

const EXCERPT_MAX = 80; // longer expressions are shown as a window around the place
const EXCERPT_BEFORE = 30;

/** The expression on one line and a caret line under the place; control characters shown as spaces. */
export function markPlace(expression: string, position: number, length: number): { line: string; caret: string } {
  // \p{Cc} are single string units, so replacing them keeps every index; it also keeps
  // terminal escape sequences out of the message.
  const chars = Array.from(expression.replace(/\p{Cc}/gu, ' '));
  const start = Array.from(expression.slice(0, position)).length;
  const span = Math.max(1, Array.from(expression.slice(position, position + Math.max(1, length))).length);
  let from = 0;
  let to = chars.length;
  if (chars.length > EXCERPT_MAX) {
    from = Math.max(0, Math.min(start - EXCERPT_BEFORE, chars.length - EXCERPT_MAX));
    to = Math.min(chars.length, from + EXCERPT_MAX);
  }
  const prefix = from > 0 ? '…' : '';
  const suffix = to < chars.length ? '…' : '';
  const line = prefix + chars.slice(from, to).join('') + suffix;
  const offset = prefix.length + start - from;
  const visible = Math.max(1, Math.min(span, to - start));
  return { line, caret: ' '.repeat(offset) + '^'.repeat(visible) };
}

/** User text in a message: quoted, escaped, and cut to a readable length. */
export function quoted(value: unknown, max = 60): string {
  if (typeof value === 'string') return JSON.stringify(value.length > max ? `${value.slice(0, max)}…` : value);
  const json = JSON.stringify(value) ?? String(value);
  return json.length > max ? `${json.slice(0, max)}…` : json;
}
