import { randomBytes } from 'node:crypto';

// JSON numbers are sent exactly as they were read. JSON.parse turns every number into a double, so
// 9007199254740993 would be sent as 9007199254740992 and 1e400 as null. The rare record holding such
// a literal is parsed with each of them swapped for a placeholder string, and written back with the
// literal put in the placeholder's place: JSON.parse and JSON.stringify stay the (fast) work horses.

/** A parsed record, with the literals its placeholders stand for when it had numbers a double cannot hold. */
export interface ExactValue {
  value: unknown;
  /** placeholder index → the number literal as read */
  numbers?: string[];
}

/** Cheap pre-check: no literal can change without 16 digits (and dots) in a row or an exponent. */
const MAYBE_INEXACT = /\d[\d.]{15}|[eE]/;

/** A string that no input holds: a NUL (escaped in JSON text) and a nonce of this process. */
const PLACEHOLDER = `\u0000tds-${randomBytes(6).toString('hex')}:`;
const PLACEHOLDER_JSON = new RegExp(`"${JSON.stringify(PLACEHOLDER).slice(1, -1).replace(/\\/g, '\\\\')}(\\d+)"`, 'g');

/** JSON.parse, keeping every number literal that a double would change. Throws JSON.parse's SyntaxError. */
export function parseExact(text: string): ExactValue {
  const value: unknown = JSON.parse(text);
  if (!MAYBE_INEXACT.test(text)) return { value };
  const inexact = inexactLiterals(text);
  if (inexact.length === 0) return { value };
  let swapped = '';
  let at = 0;
  inexact.forEach(({ start, end }, i) => {
    swapped += `${text.slice(at, start)}${JSON.stringify(PLACEHOLDER + i)}`;
    at = end;
  });
  swapped += text.slice(at);
  return { value: JSON.parse(swapped), numbers: inexact.map(({ start, end }) => text.slice(start, end)) };
}

/** JSON text of a value from parseExact, with its literals back in place. */
export function stringifyExact(value: unknown, numbers: readonly string[] | undefined): string {
  const json = JSON.stringify(value);
  if (!numbers) return json;
  return json.replace(PLACEHOLDER_JSON, (_match, index: string) => numbers[Number(index)]!);
}

/** A value read from a record as its text (for keys): a placeholder is its literal, other values as they are. */
export function exactText(value: unknown, numbers: readonly string[] | undefined): unknown {
  if (numbers && typeof value === 'string' && value.startsWith(PLACEHOLDER)) return numbers[Number(value.slice(PLACEHOLDER.length))];
  return value;
}

/** Number literals of a valid JSON text whose double differs from them in value. */
function inexactLiterals(text: string): Array<{ start: number; end: number }> {
  const found: Array<{ start: number; end: number }> = [];
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      i = endOfString(text, i);
    } else if (c === 45 /* - */ || (c >= 48 && c <= 57)) {
      const start = i;
      while (i + 1 < text.length && isNumberChar(text.charCodeAt(i + 1))) i += 1;
      const literal = text.slice(start, i + 1);
      if (!sameDecimal(literal, String(Number(literal)))) found.push({ start, end: i + 1 });
    }
  }
  return found;
}

function endOfString(text: string, open: number): number {
  for (let i = open + 1; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c === 92 /* \ */) i += 1;
    else if (c === 34) return i;
  }
  return text.length;
}

function isNumberChar(c: number): boolean {
  return (c >= 48 && c <= 57) || c === 46 || c === 101 || c === 69 || c === 43 || c === 45;
}

/** Whether two number texts (JSON literal, or JavaScript's String of a double) are the same decimal number. */
export function sameDecimal(a: string, b: string): boolean {
  const x = canonical(a);
  return x !== undefined && x === canonical(b);
}

/** `[-]digits e exponent` with no leading or trailing zero digits; `0` for zero (so -0 and 0 are one value). */
function canonical(text: string): string | undefined {
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!match) return undefined;
  const fraction = match[3] ?? '';
  let digits = (match[2]! + fraction).replace(/^0+/, '');
  if (digits === '') return '0';
  let exponent = BigInt(match[4] ?? '0') - BigInt(fraction.length);
  const trimmed = digits.replace(/0+$/, '');
  exponent += BigInt(digits.length - trimmed.length);
  digits = trimmed;
  return `${match[1]}${digits}e${exponent}`;
}
