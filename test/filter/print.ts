import type { WhereExpr, WhereValue } from '../../src/filter/parser.js';

// Prints an AST back as --where text (the inverse of parseWhere, for the round-trip property).
// Nested groups are always parenthesized; columns are quoted unless a plain word.

export function printWhere(expr: WhereExpr): string {
  if (expr.kind === 'term') {
    const head = `${printColumn(expr.column)} ${expr.operator}`;
    return expr.value === undefined ? head : `${head} ${printValue(expr.value)}`;
  }
  return expr.items.map((item) => (item.kind === 'term' ? printWhere(item) : `(${printWhere(item)})`)).join(` ${expr.kind} `);
}

export function printValue(value: WhereValue): string {
  switch (value.type) {
    case 'word':
    case 'number':
      return value.text;
    case 'string':
      return quote(value.text);
    case 'boolean':
      return String(value.value);
    case 'list':
      return `[${value.items.map(printValue).join(', ')}]`;
    case 'range':
      return `${printValue(value.start)}..${printValue(value.end)}`;
  }
}

function printColumn(column: string): string {
  return /^[A-Za-z_][A-Za-z0-9_-]*$/.test(column) ? column : quote(column);
}

function quote(text: string): string {
  return `"${text.replace(/[\\"]/g, (ch) => `\\${ch}`)}"`;
}

/** The AST without its positions, to compare a parse with the tree that was printed. */
export function withoutPositions(expr: WhereExpr): unknown {
  if (expr.kind === 'term') {
    const { columnPos: _c, operatorPos: _o, valuePos: _v, ...rest } = expr;
    return rest;
  }
  return { kind: expr.kind, items: expr.items.map(withoutPositions) };
}
