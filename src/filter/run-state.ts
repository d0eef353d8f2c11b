import {
  acceptedOperators,
  type CellStatus,
  type Field,
  type FilterGroup,
  type FilterRule,
  type Operator,
  type Row,
} from '../service/index.js';
import { quoted } from './errors.js';
import type { WhereExpr, WhereTerm, WhereValue } from './parser.js';
import { lookupColumn } from './resolve.js';

// `COL.status` in --where (docs/cli.md "Filters"): a column's run state, by the key exports give it
// (`Enrich.status`). The service filters on run states only through operators that each cover some
// states (section 4.5: hasError, hasNoError, hasNotRun, runConditionNotMet), and several states have
// none. So a run-state test is made here, on each row the service returns; where an operator covers
// the states asked for, the service is sent it too, so that it returns fewer rows to test.

/** A cell's run state as exports and `tds stats` name it: the service's status, or `none` when it has none. */
export const RUN_STATE_WORDS = [
  'success',
  'failed',
  'skipped',
  'stopped',
  'queued',
  'waiting',
  'running',
  'manual',
  'none',
] as const satisfies ReadonlyArray<CellStatus | 'none'>;
export type RunStateWord = (typeof RUN_STATE_WORDS)[number];

/** The operator that returns every cell in that state (and maybe others): the service's narrowing of `= STATE`. */
const COVERING: Partial<Record<RunStateWord, Operator>> = {
  failed: 'hasError',
  skipped: 'runConditionNotMet',
  stopped: 'hasNotRun',
  none: 'hasNotRun',
};

const STATE_OPERATORS = ['=', '!=', 'in', 'notIn', 'null', 'notNull'] as const;
type StateOperator = (typeof STATE_OPERATORS)[number];

const SUFFIX = /\.status$/i;

/** A test made here, on each row the service returns; `narrowing`: what the service is sent for it, if anything. */
export interface StateTest {
  test(row: Row): boolean;
  narrowing?: FilterRule | FilterGroup;
}

/** The column whose run state `ref` names (`Enrich.status`), or undefined when `ref` is not such a reference. */
export function stateColumn(ref: string, fields: Field[]): Field | undefined {
  if (!SUFFIX.test(ref) || lookupColumn(ref, fields)) return undefined;
  return lookupColumn(ref.replace(SUFFIX, ''), fields);
}

/** Whether any term of `expr` tests a run state. */
export function hasStateTerm(expr: WhereExpr, fields: Field[]): boolean {
  return expr.kind === 'term' ? stateColumn(expr.column, fields) !== undefined : expr.items.some((item) => hasStateTerm(item, fields));
}

/** Whether every term of `expr` tests a run state. */
export function onlyStateTerms(expr: WhereExpr, fields: Field[]): boolean {
  return expr.kind === 'term' ? stateColumn(expr.column, fields) !== undefined : expr.items.every((item) => onlyStateTerms(item, fields));
}

/**
 * The test of an expression made of run-state terms only, and the service filter that narrows it: an
 * `and` is narrowed by what its terms have, an `or` only when every one of its terms has one.
 * `fail(term, at, problem, hint)` places a mistake in the expression.
 */
export function stateTest(expr: WhereExpr, fields: Field[], fail: (at: number, problem: string, hint?: string) => never): StateTest {
  if (expr.kind === 'term') return termTest(expr, stateColumn(expr.column, fields)!, fail);
  const parts = expr.items.map((item) => stateTest(item, fields, fail));
  const test =
    expr.kind === 'and' ? (row: Row) => parts.every((part) => part.test(row)) : (row: Row) => parts.some((part) => part.test(row));
  const narrowings = parts.flatMap((part) => (part.narrowing ? [part.narrowing] : []));
  if (narrowings.length === 0 || (expr.kind === 'or' && narrowings.length < parts.length)) return { test };
  return { test, narrowing: narrowings.length === 1 ? narrowings[0]! : { combinator: expr.kind, rules: narrowings } };
}

function termTest(term: WhereTerm, field: Field, fail: (at: number, problem: string, hint?: string) => never): StateTest {
  const operator = term.operator as StateOperator;
  if (!STATE_OPERATORS.includes(operator)) {
    fail(term.operatorPos, `a run state takes ${STATE_OPERATORS.join(', ')}, not ${term.operator}`, `e.g. ${term.column} = failed`);
  }
  const states = new Set(operator === 'null' || operator === 'notNull' ? (['none'] as RunStateWord[]) : stateWords(term, fail));
  const stateOf = (row: Row): RunStateWord => row.cells[field.id]?.status ?? 'none';
  const positive = operator === '=' || operator === 'in' || operator === 'null';
  const test = positive ? (row: Row) => states.has(stateOf(row)) : (row: Row) => !states.has(stateOf(row));
  const narrowing = narrowingOf(field, positive, states);
  return narrowing ? { test, narrowing } : { test };
}

/** The service's rules that return every row in `states` (positive) or not in them; undefined when none does. */
function narrowingOf(field: Field, positive: boolean, states: ReadonlySet<RunStateWord>): FilterRule | FilterGroup | undefined {
  const accepted = new Set(acceptedOperators(field.type));
  const usable = (operator: Operator | undefined): operator is Operator => operator !== undefined && accepted.has(operator);
  if (!positive) {
    // every state but failed: the rows without an error
    const onlyFailed = states.size === 1 && states.has('failed');
    return onlyFailed && usable('hasNoError') ? { fieldId: field.id, operator: 'hasNoError' } : undefined;
  }
  const operators = [...new Set([...states].map((state) => COVERING[state]))];
  if (!operators.every(usable)) return undefined;
  const rules = operators.map((operator): FilterRule => ({ fieldId: field.id, operator }));
  return rules.length === 1 ? rules[0] : { combinator: 'or', rules };
}

function stateWords(term: WhereTerm, fail: (at: number, problem: string, hint?: string) => never): RunStateWord[] {
  const list = term.operator === 'in' || term.operator === 'notIn';
  const value = term.value;
  const items: WhereValue[] = value === undefined ? [] : value.type === 'list' ? value.items : [value];
  if (value === undefined || (list && value.type !== 'list') || (!list && value.type === 'list') || items.length === 0) {
    fail(term.valuePos, `${term.operator} on a run state takes ${list ? 'a list of states' : 'one state'}`, STATES_HINT);
  }
  return items.map((item) => {
    const word = item.type === 'word' || item.type === 'string' ? item.text.toLowerCase() : undefined;
    if (!word || !isStateWord(word)) fail(term.valuePos, `${quoted(wordOf(item))} is not a run state`, STATES_HINT);
    return word as RunStateWord;
  });
}

const STATES_HINT = `the run states: ${RUN_STATE_WORDS.join(', ')} (none: no state)`;

function wordOf(value: WhereValue): string {
  if (value.type === 'word' || value.type === 'string' || value.type === 'number') return value.text;
  if (value.type === 'boolean') return String(value.value);
  return value.type;
}

export function isStateWord(word: string): word is RunStateWord {
  return (RUN_STATE_WORDS as readonly string[]).includes(word.toLowerCase());
}

/**
 * A hint for a term that compares a column with a run state's name (`Enrich = failed`): that tests the
 * cell's value, which is seldom what was meant. Undefined for any other term.
 */
export function stateValueHint(term: WhereTerm, field: Field): string | undefined {
  if (term.operator !== '=' && term.operator !== '!=' && term.operator !== 'in' && term.operator !== 'notIn') return undefined;
  const items = term.value?.type === 'list' ? term.value.items : term.value ? [term.value] : [];
  const state = items.find((item) => (item.type === 'word' || item.type === 'string') && isStateWord(item.text));
  if (!state || !('text' in state)) return undefined;
  const statusful = field.type === 'action' || field.type === 'webhook';
  if (!statusful) return undefined;
  return `${quoteRef(term.column)} ${term.operator} ${state.text} compares the cell's value; for its run state write ${quoteRef(`${field.label}.status`)} ${term.operator} ${state.text}`;
}

function quoteRef(ref: string): string {
  return /^[^\s()[\],=!<>"'.]+(\.status)?$/.test(ref) ? ref : JSON.stringify(ref);
}
