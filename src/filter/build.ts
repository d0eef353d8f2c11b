import { FILTER_MAX_ENTRIES_PER_GROUP, isFilterGroup, type Field, type FilterGroup, type FilterRule, type Row } from '../service/index.js';
import { placed, FilterError } from './errors.js';
import { parseFilterJson } from './filter-json.js';
import { parseWhere, type WhereExpr, type WhereTerm, type WhereValue } from './parser.js';
import { tokenize } from './lexer.js';
import { operatorProblem, raise, valueProblem } from './problems.js';
import { resolveColumn } from './resolve.js';
import { hasStateTerm, onlyStateTerms, stateTest, stateValueHint, type StateTest } from './run-state.js';
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

/** What the flags ask: the service's part, and the run-state tests made on the rows it returns. */
export interface FilterPlan {
  /** the query body's `filters` */
  filters?: FilterGroup;
  /** the `COL.status` tests, made on each row the service returns */
  local?: LocalFilter;
  /** hints on terms that are valid but seldom meant (`Enrich = failed`) */
  hints: string[];
}

export interface LocalFilter {
  test(row: Row): boolean;
  /** the --where text of the tests, as written */
  text: string;
  /** whether the service is sent a rule that narrows the rows to test (hasError for `= failed`) */
  narrowed: boolean;
}

/** The service's part of the flags (planFilters without the run-state tests). */
export function buildFilters(input: BuildFiltersInput): FilterGroup | undefined {
  return planFilters(input).filters;
}

export function planFilters(input: BuildFiltersInput): FilterPlan {
  const parts: Entry[] = [];
  const hints: string[] = [];
  const wheres = input.where.map((expression, index) => {
    const where = { source: input.where.length > 1 ? `--where #${index + 1}` : '--where', expression };
    return { where, expr: placed({ source: where.source }, () => parseWhere(expression)) };
  });
  const local: LocalPart[] = [];
  const serviceEntries: Entry[] = [];
  const stateful = wheres.filter(({ expr }) => hasStateTerm(expr, input.fields));
  if (input.any && stateful.length > 0) {
    const mixed = wheres.find(({ expr }) => !onlyStateTerms(expr, input.fields));
    if (mixed) throw mixedError(mixed.where, mixed.expr);
    local.push(...orOfStates(wheres, input.fields));
  } else {
    for (const { where, expr } of wheres) {
      if (!hasStateTerm(expr, input.fields)) {
        serviceEntries.push(whereToFilter(expr, input.fields, where, hints));
        continue;
      }
      for (const part of expr.kind === 'and' ? expr.items : [expr]) {
        if (!hasStateTerm(part, input.fields)) serviceEntries.push(whereToFilter(part, input.fields, where, hints));
        else if (onlyStateTerms(part, input.fields)) local.push({ where, expr: part, ...stateTest(part, input.fields, failAt(where)) });
        else throw mixedError(where, part);
      }
    }
  }
  for (const part of local) if (part.narrowing) serviceEntries.push(part.narrowing);
  if (serviceEntries.length > 0) parts.push(join(input.any ? 'or' : 'and', serviceEntries));
  if (input.filterJson !== undefined) parts.push(parseFilterJson(input.filterJson, input.fields));
  const top = parts.length === 0 ? undefined : join('and', parts);
  return {
    ...(top && top.rules.length > 0 ? { filters: top } : {}),
    ...(local.length > 0 ? { local: localFilter(local) } : {}),
    hints,
  };
}

/** A run-state part of a --where, with its test. */
interface LocalPart extends StateTest {
  where: WhereSource;
  expr: WhereExpr;
}

/** --any over expressions of run-state terms only: one test, narrowed when every expression is. */
function orOfStates(wheres: Array<{ where: WhereSource; expr: WhereExpr }>, fields: Field[]): LocalPart[] {
  const parts = wheres.map(({ where, expr }) => ({ where, expr, ...stateTest(expr, fields, failAt(where)) }));
  const narrowings = parts.flatMap((part) => (part.narrowing ? [part.narrowing] : []));
  const [first] = parts;
  if (parts.length === 1 && first) return [first];
  const any: LocalPart = {
    where: { source: '--where', expression: wheres.map(({ where }) => where.expression).join(' or ') },
    expr: { kind: 'or', items: wheres.map(({ expr }) => expr), pos: 0 },
    test: (row) => parts.some((part) => part.test(row)),
    ...(narrowings.length === parts.length ? { narrowing: { combinator: 'or', rules: narrowings } } : {}),
  };
  return [any];
}

function localFilter(parts: LocalPart[]): LocalFilter {
  return {
    test: (row) => parts.every((part) => part.test(row)),
    text: parts.map(({ expr }) => printWhere(expr, parts.length > 1)).join(' and '),
    narrowed: parts.some((part) => part.narrowing !== undefined),
  };
}

/** An expression as text, for messages (`Enrich.status in [queued, running]`). */
export function printWhere(expr: WhereExpr, nested = false): string {
  if (expr.kind !== 'term') {
    const text = expr.items.map((item) => printWhere(item, true)).join(` ${expr.kind} `);
    return nested ? `(${text})` : text;
  }
  const column = /^[^\s()[\],=!<>"']+$/.test(expr.column) ? expr.column : JSON.stringify(expr.column);
  return [column, expr.operator, ...(expr.value ? [printValue(expr.value)] : [])].join(' ');
}

function printValue(value: WhereValue): string {
  switch (value.type) {
    case 'word':
    case 'number':
      return value.text;
    case 'string':
      return JSON.stringify(value.text);
    case 'boolean':
      return String(value.value);
    case 'list':
      return `[${value.items.map(printValue).join(', ')}]`;
    case 'range':
      return `${printValue(value.start)}..${printValue(value.end)}`;
  }
}

function failAt(where: WhereSource): (at: number, problem: string, hint?: string) => never {
  return (at, problem, hint) => {
    throw new FilterError(problem, {
      ...(hint ? { hint } : {}),
      location: { ...where, position: at, length: spanLength(where.expression, at) },
    });
  };
}

function mixedError(where: WhereSource, expr: WhereExpr): FilterError {
  return new FilterError('a run-state test (COL.status) cannot be joined with or to a test of the service', {
    hint: 'tds tests run states on the rows the service returns: write it beside the rest with and, or make two queries',
    location: { ...where, position: expr.kind === 'term' ? expr.columnPos : expr.pos, length: 1 },
  });
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

export function whereToFilter(expr: WhereExpr, fields: Field[], where: WhereSource, hints: string[] = []): FilterRule | FilterGroup {
  if (expr.kind === 'term') return termToRule(expr, fields, where, hints);
  return { combinator: expr.kind, rules: expr.items.map((item) => whereToFilter(item, fields, where, hints)) };
}

function termToRule(term: WhereTerm, fields: Field[], where: WhereSource, hints: string[]): FilterRule {
  let position = term.columnPos;
  try {
    const field = resolveColumn(term.column, fields);
    const hint = stateValueHint(term, field);
    if (hint) hints.push(hint);
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
