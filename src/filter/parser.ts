import { OPERATORS, VALUELESS_OPERATORS, type Operator } from '../service/index.js';
import { FilterError, characterNumber, quoted } from './errors.js';
import { tokenize, type Token } from './lexer.js';
import { didYouMean } from '../core/index.js';

// --where EXPR → AST (grammar in docs/cli.md "Filters"). `and` binds tighter than `or`; a chain of the same
// keyword is one group; parentheses always keep their group, so (a and b) and c stays nested.

export type WhereValue =
  | { type: 'word' | 'string'; text: string }
  | { type: 'number'; text: string }
  | { type: 'boolean'; value: boolean }
  | { type: 'list'; items: WhereValue[] }
  | { type: 'range'; start: WhereValue; end: WhereValue };

export interface WhereTerm {
  kind: 'term';
  column: string;
  columnPos: number;
  operator: Operator;
  operatorPos: number;
  value?: WhereValue;
  /** Where the value starts; for an operator without value, just past the operator. */
  valuePos: number;
}

export interface WhereGroup {
  kind: 'and' | 'or';
  items: WhereExpr[];
  /** Where the group's text starts (its opening parenthesis, if any). */
  pos: number;
}

export type WhereExpr = WhereGroup | WhereTerm;

export function parseWhere(text: string): WhereExpr {
  return new Parser(text).parse();
}

// Only a guard against stack exhaustion on hostile input; the service's own nesting limit
// (far lower) is checked on the built filter.
const MAX_PARENTHESES = 64;

const EXAMPLE = 'write COLUMN OPERATOR [VALUE], e.g. Name contains Ada, and join conditions with and / or';
const OPERATOR_LIST = `operators: ${OPERATORS.join(' ')}`;
const ALIASES = new Map([
  ['==', '='],
  ['<>', '!='],
  ['=<', '<='],
  ['=>', '>='],
  ['is', 'null or notNull'],
  ['not', 'notNull, notIn or doesNotContain'],
  ['like', 'contains'],
]);

class Parser {
  private readonly tokens: Token[];
  private index = 0;
  private depth = 0;

  constructor(private readonly text: string) {
    this.tokens = tokenize(text);
  }

  parse(): WhereExpr {
    if (this.peek().kind === 'end') throw this.error('the expression is empty', this.peek(), EXAMPLE);
    const expr = this.parseChain('or');
    const next = this.peek();
    if (next.kind === ')') throw this.error('this ) has no matching (', next);
    return expr;
  }

  /** `or` chain of `and` chains of terms. */
  private parseChain(keyword: 'and' | 'or'): WhereExpr {
    const parseItem = keyword === 'or' ? () => this.parseChain('and') : () => this.parseTerm();
    const items = [parseItem()];
    while (isKeyword(this.peek(), keyword)) {
      this.index += 1;
      items.push(parseItem());
    }
    const first = items[0] as WhereExpr;
    if (items.length === 1) return first;
    return { kind: keyword, items, pos: first.kind === 'term' ? first.columnPos : first.pos };
  }

  private parseTerm(): WhereExpr {
    const start = this.peek();
    if (start.kind === '(') return this.parseParenthesized(start);
    if (start.kind !== 'word' && start.kind !== 'string') {
      const after = this.index > 0 ? ` after ${describe(this.tokens[this.index - 1] as Token)}` : '';
      throw this.error(`expected a condition${after}, got ${describe(start)}`, start, EXAMPLE);
    }
    this.index += 1;
    const column = start.kind === 'word' ? this.labelWords(start) : start.text;
    const operatorToken = this.next();
    const operator = this.operatorOf(operatorToken, column);
    let value: WhereValue | undefined;
    let valuePos = operatorToken.end;
    const after = this.peek();
    if (VALUELESS_OPERATORS.includes(operator)) {
      if (!endsTerm(after)) throw this.error(`${operator} takes no value`, after, 'remove the value');
    } else {
      if (endsTerm(after)) {
        const hint =
          isKeyword(after, 'and') || isKeyword(after, 'or')
            ? `to compare with the word "${after.text}", quote it: "${after.text}"`
            : EXAMPLE;
        throw this.error(`${operator} needs a value`, after, hint);
      }
      valuePos = after.pos;
      value = this.parseValue();
    }
    this.expectTermEnd();
    const term: WhereTerm = { kind: 'term', column, columnPos: start.pos, operator, operatorPos: operatorToken.pos, valuePos };
    if (value !== undefined) term.value = value;
    return term;
  }

  /**
   * An unquoted label of several words (`Lead score > 90`): the bare words up to an operator, as
   * written; the column then has to match that label exactly. Without an operator after them, the
   * first word alone (the next one is reported as an unknown operator).
   */
  private labelWords(start: Token): string {
    let next = this.index;
    while (isPlainWord(this.tokens[next] as Token)) next += 1;
    const after = this.tokens[next] as Token;
    if (next === this.index || (after.kind !== 'word' && after.kind !== 'symbol') || !operatorNamed(after.text)) return start.text;
    this.index = next;
    return this.text.slice(start.pos, (this.tokens[next - 1] as Token).end);
  }

  private parseParenthesized(open: Token): WhereExpr {
    if (this.depth >= MAX_PARENTHESES)
      throw this.error('parentheses are nested too deeply', open, 'remove parentheses that do not change the meaning');
    this.index += 1;
    this.depth += 1;
    const inner = this.parseChain('or');
    this.depth -= 1;
    const close = this.peek();
    // Every condition ends at and, or, ) or the end, so only the end can stand here.
    if (close.kind !== ')') throw this.error(`missing ) to close the ( at character ${characterNumber(this.text, open.pos)}`, close);
    this.index += 1;
    this.expectTermEnd();
    return inner.kind === 'term' ? inner : { ...inner, pos: open.pos };
  }

  private operatorOf(token: Token, column: string): Operator {
    if (token.kind !== 'word' && token.kind !== 'symbol') {
      throw this.error(`expected an operator after the column ${quoted(column)}, got ${describe(token)}`, token, OPERATOR_LIST);
    }
    const operator = operatorNamed(token.text);
    if (operator) return operator;
    const alias = ALIASES.get(token.text.toLowerCase());
    const next = this.peek();
    let hint = alias ? `use ${alias}` : didYouMean(token.text, OPERATORS);
    if (!hint && token.kind === 'word' && (next.kind === 'symbol' || operatorNamed(next.text))) {
      hint = `a column name with spaces must be quoted: "${column} ${token.text}"`;
    }
    throw this.error(`unknown operator ${quoted(token.text)}`, token, hint ? `${hint}; ${OPERATOR_LIST}` : OPERATOR_LIST);
  }

  private parseValue(): WhereValue {
    if (this.peek().kind === '[') {
      const list = this.parseList();
      if (this.peek().kind === '..') throw this.error('a list cannot be part of a range START..END', this.peek());
      return list;
    }
    const start = this.parseScalar();
    if (this.peek().kind !== '..') return start;
    this.index += 1;
    const endToken = this.peek();
    if (endToken.kind === '[') throw this.error('a list cannot be part of a range START..END', endToken);
    if (endToken.kind !== 'word' && endToken.kind !== 'string') {
      throw this.error(
        `the range needs an end after "..", got ${describe(endToken)}`,
        endToken,
        'write START..END, e.g. 2024-01-01..2024-01-31',
      );
    }
    const end = this.parseScalar();
    if (this.peek().kind === '..') throw this.error('a range has a single ..: START..END', this.peek());
    return { type: 'range', start, end };
  }

  private parseList(): WhereValue {
    const open = this.next();
    const items: WhereValue[] = [];
    if (this.peek().kind === ']') {
      this.index += 1;
      return { type: 'list', items };
    }
    for (;;) {
      const token = this.peek();
      if (token.kind === '[') throw this.error('lists cannot be nested', token, 'a list holds single values: [a, b, c]');
      if (token.kind === 'end') throw this.unclosedList(open, token);
      items.push(this.parseScalar());
      if (this.peek().kind === '..')
        throw this.error('a range START..END cannot be a list item', this.peek(), 'a list holds single values: [a, b, c]');
      const separator = this.next();
      if (separator.kind === ']') return { type: 'list', items };
      if (separator.kind === 'end') throw this.unclosedList(open, separator);
      if (separator.kind !== ',') {
        throw this.error(
          `expected , or ] in the list, got ${describe(separator)}`,
          separator,
          'separate list items with commas and quote items that have spaces',
        );
      }
    }
  }

  private parseScalar(): WhereValue {
    const token = this.peek();
    if (token.kind === 'string') {
      this.index += 1;
      return { type: 'string', text: token.text };
    }
    if (token.kind === 'word') {
      this.index += 1;
      if (isNumberText(token.text)) return { type: 'number', text: token.text };
      const bool = booleanOf(token.text);
      return bool === undefined ? { type: 'word', text: token.text } : { type: 'boolean', value: bool };
    }
    if (token.kind === '..')
      throw this.error('the range needs a start before ".."', token, 'write START..END, e.g. 2024-01-01..2024-01-31');
    throw this.error(`expected a value, got ${describe(token)}`, token, 'quote values that contain ( ) [ ] , = ! < > or spaces');
  }

  /** After a condition: and, or, ) or the end. */
  private expectTermEnd(): void {
    const next = this.peek();
    if (endsTerm(next)) return;
    const previous = this.tokens[this.index - 1] as Token;
    throw this.error(
      `unexpected ${describe(next)} after ${describe(previous)}`,
      next,
      'join conditions with and / or; quote a value that has spaces, e.g. "New York"',
    );
  }

  private unclosedList(open: Token, at: Token): FilterError {
    return this.error(`missing ] to close the list [ at character ${characterNumber(this.text, open.pos)}`, at);
  }

  private peek(): Token {
    return this.tokens[this.index] as Token;
  }

  private next(): Token {
    const token = this.peek();
    if (token.kind !== 'end') this.index += 1;
    return token;
  }

  private error(problem: string, token: Token, hint?: string): FilterError {
    return new FilterError(problem, {
      hint,
      location: { source: '--where', expression: this.text, position: token.pos, length: Math.max(1, token.end - token.pos) },
    });
  }
}

function isKeyword(token: Token, keyword: 'and' | 'or'): boolean {
  return token.kind === 'word' && token.text.toLowerCase() === keyword;
}

function endsTerm(token: Token): boolean {
  return token.kind === 'end' || token.kind === ')' || isKeyword(token, 'and') || isKeyword(token, 'or');
}

function describe(token: Token): string {
  if (token.kind === 'end') return 'the end of the expression';
  return quoted(token.text, 40);
}

/** A bare word that can be part of a label: no operator, no alias of one, no and/or. */
function isPlainWord(token: Token): boolean {
  return token.kind === 'word' && !operatorNamed(token.text) && !ALIASES.has(token.text.toLowerCase()) && !endsTerm(token);
}

// How written text reads as an operator, a number or a boolean: shared by the parser, --filter
// and the typing by column.

/** An operator in any case → the service's spelling. */
export function operatorNamed(text: string): Operator | undefined {
  const folded = text.toLowerCase();
  return OPERATORS.find((operator) => operator.toLowerCase() === folded);
}

const NUMBER = /^-?(?:\d+(?:\.\d+)?|\.\d+)(?:[eE][+-]?\d+)?$/;

export function isNumberText(text: string): boolean {
  return NUMBER.test(text);
}

/** `true`/`false` in any case; undefined for anything else. */
export function booleanOf(text: string): boolean | undefined {
  const folded = text.toLowerCase();
  if (folded === 'true') return true;
  if (folded === 'false') return false;
  return undefined;
}
