import {
  ANY_OF_MAX_ITEMS,
  DATE_PRESETS,
  FILTER_MAX_DEPTH,
  FILTER_MAX_ENTRIES_PER_GROUP,
  FILTER_MAX_ENTRIES_TOTAL,
  FILTER_VALUE_MAX_CHARS,
  RUN_STATUS_OPERATORS,
  VALUELESS_OPERATORS,
  acceptedOperators,
  type Field,
  type Operator,
} from '../service/index.js';
import { isIsoDateTime } from './dates.js';
import { FilterError, quoted, type FilterLocation } from './errors.js';
import { describeField } from './resolve.js';

// The service's rules for one filter rule and for the filter's size (docs/service-api.md 4.5), as
// messages. Shared by the builders (which add the place in the user's text) and validateQuery.

export interface Problem {
  message: string;
  hint?: string;
}

/** The value each operator takes ("Values by operator"). */
export type ValueKind = 'none' | 'list' | 'anyOfList' | 'preset' | 'range' | 'scalar';

export function valueKind(operator: Operator): ValueKind {
  if (VALUELESS_OPERATORS.includes(operator)) return 'none';
  switch (operator) {
    case 'containsAnyOf':
    case 'doesNotContainAnyOf':
      return 'anyOfList';
    case 'in':
    case 'notIn':
      return 'list';
    case 'isDatePreset':
      return 'preset';
    case 'between':
      return 'range';
    default:
      return 'scalar';
  }
}

export function operatorProblem(operator: Operator, field: Field): Problem | undefined {
  // The service also accepts the run-status operators on "any column that runs an action or AI",
  // and the schema does not say which columns do: they are accepted on every column here and
  // the service has the last word.
  if (acceptedOperators(field.type, true).includes(operator)) return undefined;
  const accepted = acceptedOperators(field.type);
  const runStatus = RUN_STATUS_OPERATORS.every((op) => accepted.includes(op))
    ? ''
    : `, and ${RUN_STATUS_OPERATORS.join(', ')} if the column runs an action or AI`;
  return {
    message: `column ${describeField(field)} is of type ${field.type}, which does not accept ${operator}; it accepts ${accepted.join(', ')}${runStatus}`,
  };
}

/** The value's presence, shape and size for its operator (not its type, which the service does not check). */
export function valueProblem(operator: Operator, value: unknown): Problem | undefined {
  const kind = valueKind(operator);
  if (kind === 'none') return value === undefined ? undefined : { message: `${operator} takes no value`, hint: 'remove the value' };
  if (value === undefined) return { message: `${operator} needs a value` };
  switch (kind) {
    case 'list':
    case 'anyOfList':
      return listProblem(operator, value, kind === 'anyOfList');
    case 'preset':
      return typeof value === 'string' && (DATE_PRESETS as readonly string[]).includes(value)
        ? undefined
        : { message: `isDatePreset takes one of ${DATE_PRESETS.join(', ')}` };
    case 'range':
      return rangeProblem(value);
    default:
      if (typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))) {
        return lengthProblem(String(value), 'the value');
      }
      return { message: `${operator} takes a single text, number or true/false value` };
  }
}

function listProblem(operator: Operator, value: unknown, anyOf: boolean): Problem | undefined {
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
    return { message: `${operator} takes a list of strings`, hint: 'write the list as [a, b, c]' };
  }
  if (anyOf && value.length > ANY_OF_MAX_ITEMS) {
    const ignored = value.length - ANY_OF_MAX_ITEMS;
    return {
      message: `${operator} takes at most ${ANY_OF_MAX_ITEMS} entries and this list has ${value.length}: the service would ignore the last ${ignored}`,
      hint: `split the list over several ${operator} conditions joined with ${operator === 'containsAnyOf' ? 'or' : 'and'}`,
    };
  }
  for (const [index, item] of value.entries()) {
    const problem = lengthProblem(item, `list item ${index + 1}`);
    if (problem) return problem;
  }
  return jsonTextProblem(value, 'the list');
}

/** A value that is not text is sent as JSON text, and that text is what the 1,000-character limit counts. */
function jsonTextProblem(value: unknown, what: string): Problem | undefined {
  const problem = lengthProblem(JSON.stringify(value), `${what} as JSON text`);
  return problem && { ...problem, hint: 'split it over several conditions' };
}

function rangeProblem(value: unknown): Problem | undefined {
  const range = value as { start?: unknown; end?: unknown };
  const shape = { message: 'between takes {start, end}: two ISO 8601 date-times', hint: 'e.g. 2024-01-01T00:00:00Z..2024-02-01T00:00:00Z' };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return shape;
  if (Object.keys(value).some((key) => key !== 'start' && key !== 'end')) return shape;
  for (const end of ['start', 'end'] as const) {
    const text = range[end];
    if (typeof text !== 'string') return shape;
    const problem = lengthProblem(text, `the range ${end}`);
    if (problem) return problem;
    if (!isIsoDateTime(text)) {
      return { message: `the range ${end} ${quoted(text)} is not an ISO 8601 date-time with a time zone`, hint: shape.hint };
    }
  }
  return jsonTextProblem(value, 'the range');
}

function lengthProblem(text: string, what: string): Problem | undefined {
  if (text.length <= FILTER_VALUE_MAX_CHARS) return undefined;
  return {
    message: `${what} is ${count(text.length)} characters long; the service accepts at most ${count(FILTER_VALUE_MAX_CHARS)}`,
  };
}

export const RULES_MISSING: Problem = { message: 'a filter group needs "rules": an array of rules and groups' };

export function combinatorProblem(combinator: unknown): Problem | undefined {
  if (combinator === undefined || combinator === 'and' || combinator === 'or') return undefined;
  return { message: `combinator must be "and" or "or", got ${quoted(combinator)}` };
}

export function depthProblem(): Problem {
  return {
    message: `filter groups nest more than ${FILTER_MAX_DEPTH} levels deep (counting the top level); the service accepts at most ${FILTER_MAX_DEPTH}`,
    hint: 'remove parentheses or nested groups that do not change the meaning',
  };
}

export function groupSizeProblem(entries: number): Problem | undefined {
  if (entries <= FILTER_MAX_ENTRIES_PER_GROUP) return undefined;
  return {
    message: `a filter group has ${entries} entries; the service accepts at most ${FILTER_MAX_ENTRIES_PER_GROUP} per group`,
    hint: 'move some of them into a nested group, which counts as one entry',
  };
}

export function totalSizeProblem(entries: number): Problem | undefined {
  if (entries <= FILTER_MAX_ENTRIES_TOTAL) return undefined;
  return {
    message: `the filter has ${entries} entries in all; the service accepts at most ${FILTER_MAX_ENTRIES_TOTAL} (a nested group counts as one entry in its parent)`,
  };
}

function count(n: number): string {
  return n.toLocaleString('en-US');
}

/** Throws the problem as a FilterError, if there is one. */
export function raise(problem: Problem | undefined, location?: FilterLocation): void {
  if (problem) throw new FilterError(problem.message, { hint: problem.hint, location });
}
