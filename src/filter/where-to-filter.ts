import type { Field, FilterGroup, FilterRule } from '../service/index.js';
import { FilterError } from './errors.js';
import { tokenize } from './lexer.js';
import type { WhereExpr, WhereTerm } from './parser.js';
import { operatorProblem, raise, valueProblem } from './problems.js';
import { resolveColumn } from './resolve.js';
import { typeValue } from './type-value.js';

// A parsed --where → the service's rule/group JSON, each problem marked at its place in the text.

export interface WhereSource {
  /** `--where`, or `--where #2` when there are several. */
  source: string;
  expression: string;
}

export function whereToFilter(expr: WhereExpr, fields: Field[], where: WhereSource): FilterRule | FilterGroup {
  if (expr.kind === 'term') return termToRule(expr, fields, where);
  return { combinator: expr.kind, rules: expr.items.map((item) => whereToFilter(item, fields, where)) };
}

function termToRule(term: WhereTerm, fields: Field[], where: WhereSource): FilterRule {
  let position = term.columnPos;
  try {
    const field = resolveColumn(term.column, fields);
    position = term.operatorPos;
    raise(operatorProblem(term.operator, field));
    position = term.valuePos;
    const value = typeValue(term.value, term.operator, field);
    raise(valueProblem(term.operator, value));
    const rule: FilterRule = { fieldId: field.id, operator: term.operator };
    if (value !== undefined) rule.value = value;
    return rule;
  } catch (error) {
    if (!(error instanceof FilterError)) throw error;
    // an unquoted label of several words is underlined whole
    const bare = position === term.columnPos && where.expression.startsWith(term.column, position);
    throw error.at({ ...where, position, length: bare ? term.column.length : spanLength(where.expression, position) });
  }
}

/**
 * How much to underline at `position` (only computed for an error): the token there, or the whole
 * value when it is a list [..] or a range START..END.
 */
function spanLength(expression: string, position: number): number {
  const tokens = tokenize(expression);
  const first = tokens.findIndex((token) => token.pos === position);
  if (first < 0) return 1;
  let last = first;
  if (tokens[first]?.kind === '[') {
    while (last < tokens.length - 1 && tokens[last]?.kind !== ']') last += 1;
  } else if (tokens[first + 1]?.kind === '..') {
    last = first + 2;
  }
  const end = (tokens[last] ?? tokens[first])?.end ?? position + 1;
  return Math.max(1, end - position);
}
