// src/filter/: the `--where` language and `--filter` JSON. Its surface is `buildFilters` (this file:
// the flags to the service's filter group, checked), `validateQuery` (validate.ts: a query body against
// the schema), `parseWhere` (parser.ts) and `FilterError` (errors.ts); the lexer, the problems, the
// typing of values and the name lookup serve them.

import { FILTER_MAX_ENTRIES_PER_GROUP, isFilterGroup, type Field, type FilterGroup, type FilterRule } from '../service/index.js';
import { placed, FilterError } from './errors.js';
import { parseFilterJson } from './filter-json.js';
import { parseWhere, type WhereExpr, type WhereTerm } from './parser.js';
import { tokenize } from './lexer.js';
import { operatorProblem, raise, valueProblem } from './problems.js';
import { resolveColumn } from './resolve.js';
import { typeValue } from './type-value.js';

// --where (each), --any and --filter → the `filters` group of the query body, fieldIds resolved
// and values typed by column. Size limits are left to validateQuery, which sees the whole body.

export interface BuildFiltersInput {
  where: string[];
  /** Join several --where with `or` instead of `and`. */
  any?: boolean;
  /** The text of --filter (the command reads @FILE and - itself). */
  filterJson?: string;
  fields: Field[];
}

type Entry = FilterRule | FilterGroup;

export function buildFilters(input: BuildFiltersInput): FilterGroup | undefined {
  const parts: Entry[] = [];
  if (input.where.length > 0) {
    const entries = input.where.map((expression, index) => {
      const source = input.where.length > 1 ? `--where #${index + 1}` : '--where';
      const expr = placed({ source }, () => parseWhere(expression));
      return whereToFilter(expr, input.fields, { source, expression });
    });
    parts.push(join(input.any ? 'or' : 'and', entries));
  }
  if (input.filterJson !== undefined) parts.push(parseFilterJson(input.filterJson, input.fields));
  if (parts.length === 0) return undefined;
  const top = join('and', parts);
  return top.rules.length === 0 ? undefined : top;
}

/**
 * One group of the entries. Groups with the same combinator (or a single entry) are spliced in,
 * which means the same and saves a nesting level, unless that would make the group larger than
 * the service accepts; a lone group stays as it is.
 */
function join(combinator: 'and' | 'or', entries: Entry[]): FilterGroup {
  const [only] = entries;
  if (entries.length === 1 && only && isFilterGroup(only)) return only;
  const spliced = entries.flatMap((entry) =>
    isFilterGroup(entry) && (entry.rules.length === 1 || (entry.combinator ?? 'and') === combinator) ? entry.rules : [entry],
  );
  const [first] = spliced;
  if (spliced.length === 1 && first && isFilterGroup(first)) return first;
  return { combinator, rules: spliced.length <= FILTER_MAX_ENTRIES_PER_GROUP ? spliced : entries };
}

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
