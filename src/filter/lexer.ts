import { FilterError } from './errors.js';

// Tokens of a --where expression (grammar in docs/cli.md "Filters"). Bare words run until white space, one of
// ( ) [ ] , = ! < > ", or "..", so emails, dates, date-times, negative and decimal numbers and
// IDs with - and _ are single words, and START..END splits in three. Strings take double or
// single quotes (single quotes spare escaping inside a shell's double quotes); inside, a backslash
// escapes the closing quote or a backslash and is kept before anything else (C:\temp stays as
// is). A quote opens a string only at the start of a token, so O'Brien is one word.

export type TokenKind = 'word' | 'string' | 'symbol' | '(' | ')' | '[' | ']' | ',' | '..' | 'end';

export interface Token {
  kind: TokenKind;
  /** The word, the symbol run, or a string's content with its escapes undone. */
  text: string;
  /** Offset of the token's first character in the expression (a string index). */
  pos: number;
  /** Offset just past the token (past the closing quote for a string). */
  end: number;
}

const PUNCTUATION = new Set(['(', ')', '[', ']', ',']);
const SYMBOLS = new Set(['=', '!', '<', '>']);
const QUOTES = new Set(['"', "'"]);
const SPACE = /\s/;

export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i] as string;
    if (SPACE.test(ch)) {
      i += 1;
    } else if (PUNCTUATION.has(ch)) {
      tokens.push({ kind: ch as TokenKind, text: ch, pos: i, end: i + 1 });
      i += 1;
    } else if (text.startsWith('..', i)) {
      tokens.push({ kind: '..', text: '..', pos: i, end: i + 2 });
      i += 2;
    } else if (SYMBOLS.has(ch)) {
      const end = scan(text, i, (j) => SYMBOLS.has(text[j] as string));
      tokens.push({ kind: 'symbol', text: text.slice(i, end), pos: i, end });
      i = end;
    } else if (QUOTES.has(ch)) {
      const token = readString(text, i);
      tokens.push(token);
      i = token.end;
    } else {
      const end = scan(text, i, (j) => !endsWord(text, j));
      tokens.push({ kind: 'word', text: text.slice(i, end), pos: i, end });
      i = end;
    }
  }
  tokens.push({ kind: 'end', text: '', pos: text.length, end: text.length });
  return tokens;
}

function scan(text: string, from: number, keep: (index: number) => boolean): number {
  let j = from + 1;
  while (j < text.length && keep(j)) j += 1;
  return j;
}

function endsWord(text: string, j: number): boolean {
  const ch = text[j] as string;
  return SPACE.test(ch) || PUNCTUATION.has(ch) || SYMBOLS.has(ch) || ch === '"' || text.startsWith('..', j);
}

/** A quoted string: backslash escapes the closing quote and itself; any other backslash is kept. */
function readString(text: string, start: number): Token {
  const quote = text[start] as string;
  let value = '';
  let i = start + 1;
  while (i < text.length) {
    const ch = text[i] as string;
    const next = text[i + 1];
    if (ch === '\\' && (next === quote || next === '\\')) {
      value += next;
      i += 2;
    } else if (ch === quote) {
      return { kind: 'string', text: value, pos: start, end: i + 1 };
    } else {
      value += ch;
      i += 1;
    }
  }
  throw new FilterError(`this ${quote} opens a string that is never closed`, {
    hint: `end the string with ${quote}; inside it write \\${quote} for a quote and \\\\ for a backslash`,
    location: { source: '--where', expression: text, position: start },
  });
}
