import { quoteLiteral } from '../duckdb/index.js';

// A failure cause: an error message with its variable parts (URLs, e-mail addresses, quoted text,
// IDs, domains, numbers) replaced by placeholders, so that "Domain a.example could not be resolved"
// and "Domain b.example could not be resolved" are one cause. Quoted text is one placeholder in
// every quote style (`User 'x'` and `User "x"` are one cause); a number keeps the letters of its
// unit (`30s` and `45.5s` are `<n>s`). A cause is at most MAX_CAUSE_CHARS characters.
//
// The rules are data: the same patterns run here (causeOf, the pure function the tests hold to) and
// in DuckDB (causeSql: no row passes through JavaScript). They are written in the syntax JavaScript
// and RE2 (DuckDB's regular expressions) read alike: no lookaround, no Unicode classes, ASCII \b, \w.

export interface CauseRule {
  /** What the rule finds. */
  name: string;
  pattern: string;
  /** The placeholder; `$1` keeps the text of the first group. */
  replacement: string;
}

const SPACE = ' \\t\\n\\v\\f\\r';
const QUOTES = '"\'`“”‘’';
const URL_CHAR = `[^${SPACE}${QUOTES}<>()\\[\\]{}]`;
/** A URL does not end with the punctuation of the sentence around it. */
const URL_LAST = `[^${SPACE}${QUOTES}<>()\\[\\]{}.,;:!?]`;
const HEX = '[0-9A-Fa-f]';
/** Quoted text, whatever its quote marks. */
const QUOTED = '"<text>"';
/** The longest cause, in characters; a longer one is cut there and ends with `…`. */
export const MAX_CAUSE_CHARS = 200;
/** How much of a message the rules read (in characters): a cause is found in time from any message. */
const MAX_READ_CHARS = 1_000;

/** In order: each rule sees the text the rules before it left (placeholders hold no digit, dot, quote or @). */
export const CAUSE_RULES: readonly CauseRule[] = [
  { name: 'url', pattern: `[A-Za-z][A-Za-z0-9+.-]*://(${URL_CHAR}*${URL_LAST})?`, replacement: '<url>' },
  { name: 'email', pattern: '[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\\.[A-Za-z0-9-]+)+', replacement: '<email>' },
  { name: 'double-quoted', pattern: '"[^"\\n]*"', replacement: QUOTED },
  { name: 'curly-quoted', pattern: '“[^”\\n]*”', replacement: QUOTED },
  { name: 'backquoted', pattern: '`[^`\\n]*`', replacement: QUOTED },
  // an apostrophe inside a word (can't) opens no quote
  { name: 'single-quoted', pattern: "(^|[^A-Za-z0-9])'[^'\\n]*'", replacement: `$1${QUOTED}` },
  { name: 'curly-single-quoted', pattern: '‘[^’\\n]*’', replacement: QUOTED },
  { name: 'uuid', pattern: `${HEX}{8}-${HEX}{4}-${HEX}{4}-${HEX}{4}-${HEX}{12}`, replacement: '<id>' },
  { name: 'domain', pattern: '\\b[A-Za-z0-9][A-Za-z0-9-]*(\\.[A-Za-z0-9-]+)*\\.[A-Za-z]{2,}\\b', replacement: '<domain>' },
  // with the letters of its unit (up to 3): 30s, 45.5s, 100ms, 2min
  { name: 'number', pattern: '\\b[0-9]+(?:[.,][0-9]+)*([A-Za-z]{0,3})\\b', replacement: '<n>$1' },
  // a word of at least 6 characters with a digit in it (numbers are gone by now): row_8f3a2c, Error404
  {
    name: 'id',
    pattern: '\\b([0-9]\\w{5,}|\\w[0-9]\\w{4,}|\\w{2}[0-9]\\w{3,}|\\w{3}[0-9]\\w{2,}|\\w{4}[0-9]\\w+|\\w{5,}[0-9]\\w*)\\b',
    replacement: '<id>',
  },
  // digits left inside shorter words: HTTP2, usr_3
  { name: 'digits', pattern: '[0-9]+', replacement: '<n>' },
  { name: 'spaces', pattern: `[${SPACE}]+`, replacement: ' ' },
  { name: 'ends', pattern: '^ | $', replacement: '' },
];

const COMPILED = CAUSE_RULES.map((rule) => ({ regex: new RegExp(rule.pattern, 'g'), replacement: rule.replacement }));

/**
 * The cause of an error message. A message that is a JSON object with a text `message` (a service's
 * error object, kept as JSON text by the mirror) is that message, after its text `code` if it has one.
 */
export function causeOf(message: string): string {
  let text = cut(messageOf(message), MAX_READ_CHARS);
  for (const { regex, replacement } of COMPILED) text = text.replace(regex, replacement);
  return cut(text, MAX_CAUSE_CHARS);
}

/** `text` cut to `max` characters (code points, as DuckDB counts them), ending with `…` when cut. */
export function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const points = Array.from(text);
  return points.length <= max ? text : `${points.slice(0, max).join('')}…`;
}

/** cut as a DuckDB expression over the VARCHAR expression `text`. */
export function cutSql(text: string, max: number): string {
  return `(left(${text}, ${max}) || CASE WHEN length(${text}) > ${max} THEN '…' ELSE '' END)`;
}

function messageOf(text: string): string {
  if (!text.startsWith('{')) return text;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return text;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return text;
  const { message, code } = value as Record<string, unknown>;
  if (typeof message !== 'string') return text;
  return typeof code === 'string' ? `${code}: ${message}` : message;
}

/** causeOf as a DuckDB expression over the VARCHAR expression `text`. */
export function causeSql(text: string): string {
  const json = `(CASE WHEN starts_with(${text}, '{') AND json_valid(${text}) THEN CAST(${text} AS JSON) END)`;
  const isError = `json_type(${json}) = 'OBJECT' AND json_type(${json}, '$.message') = 'VARCHAR'`;
  const code = `(CASE WHEN json_type(${json}, '$.code') = 'VARCHAR' THEN json_extract_string(${json}, '$.code') || ': ' ELSE '' END)`;
  let sql = cutSql(`(CASE WHEN ${isError} THEN ${code} || json_extract_string(${json}, '$.message') ELSE ${text} END)`, MAX_READ_CHARS);
  for (const rule of CAUSE_RULES) {
    sql = `regexp_replace(${sql}, ${quoteLiteral(rule.pattern)}, ${quoteLiteral(rule.replacement.replace('$1', '\\1'))}, 'g')`;
  }
  return cutSql(sql, MAX_CAUSE_CHARS);
}
