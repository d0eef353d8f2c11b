import {
  ANY_OF_MAX_ITEMS,
  DATE_PRESETS,
  FILTER_MAX_DEPTH,
  FILTER_MAX_ENTRIES_PER_GROUP,
  FILTER_MAX_ENTRIES_TOTAL,
  FILTER_VALUE_MAX_CHARS,
  OPERATORS,
  VALUELESS_OPERATORS,
  acceptedOperators,
  isOperator,
  type FilterValue,
  type Operator,
} from '../../service/index.js';
import { parseDateTime } from '../store/dates.js';
import { badRequest } from '../http/errors.js';
import type { FieldRec } from '../store/model.js';

export interface CheckedRule {
  kind: 'rule';
  field: FieldRec;
  operator: Operator;
  value: FilterValue | undefined;
  /** Where the rule is in the body, for messages: `filters.rules[2]`. */
  path: string;
}

export interface CheckedGroup {
  kind: 'group';
  combinator: 'and' | 'or';
  entries: Array<CheckedRule | CheckedGroup>;
}

export interface CheckedFilters {
  group: CheckedGroup;
  /** Rules (not groups) anywhere in the tree: with none, pages come newest first as without filters. */
  ruleCount: number;
  /** Canonical JSON, what cursors are bound to. */
  canonical: string;
}

const LIST_OPERATORS: readonly Operator[] = ['containsAnyOf', 'doesNotContainAnyOf', 'in', 'notIn'];

/** The shape and size rules of a filter group (service-api.md 4.5); any breach is a 400 naming it. */
export function checkFilters(raw: unknown, fields: readonly FieldRec[]): CheckedFilters {
  let entriesTotal = 0;
  let ruleCount = 0;

  const group = (value: unknown, path: string, depth: number): CheckedGroup => {
    if (depth > FILTER_MAX_DEPTH) {
      throw badRequest(`filters nest at most ${FILTER_MAX_DEPTH} levels counting the top level; ${path} is level ${depth}`);
    }
    const record = plainObject(value, path, 'a filter group {combinator, rules}');
    onlyMembers(record, path, ['combinator', 'rules']);
    const { combinator = 'and', rules } = record;
    if (combinator !== 'and' && combinator !== 'or') throw badRequest(`${path}.combinator must be "and" or "or"`);
    if (!Array.isArray(rules)) throw badRequest(`${path}.rules is required and must be an array`);
    if (rules.length > FILTER_MAX_ENTRIES_PER_GROUP) {
      throw badRequest(`${path}.rules has ${rules.length} entries; a group holds at most ${FILTER_MAX_ENTRIES_PER_GROUP}`);
    }
    entriesTotal += rules.length;
    if (entriesTotal > FILTER_MAX_ENTRIES_TOTAL) {
      throw badRequest(`filters hold more than ${FILTER_MAX_ENTRIES_TOTAL} entries in total (a nested group counts as one)`);
    }
    const entries = rules.map((entry: unknown, i) => {
      const entryPath = `${path}.rules[${i}]`;
      return entry !== null && typeof entry === 'object' && 'rules' in entry ? group(entry, entryPath, depth + 1) : rule(entry, entryPath);
    });
    return { kind: 'group', combinator, entries };
  };

  const rule = (value: unknown, path: string): CheckedRule => {
    const record = plainObject(value, path, 'a rule {fieldId, operator, value} or a group {combinator, rules}');
    onlyMembers(record, path, ['fieldId', 'operator', 'value']);
    const { fieldId, operator } = record;
    if (typeof fieldId !== 'string' || fieldId === '') throw badRequest(`${path}.fieldId is required (a column ID of the table)`);
    const field = fields.find((candidate) => candidate.id === fieldId);
    if (!field) throw badRequest(`${path}.fieldId: unknown fieldId "${fieldId}": not a column ID of this table`);
    if (typeof operator !== 'string' || !isOperator(operator)) {
      throw badRequest(
        `${path}.operator: ${typeof operator === 'string' ? `unknown operator "${operator}"` : 'required'}; operators: ${OPERATORS.join(' ')}`,
      );
    }
    const accepted = acceptedOperators(field.type, field.runsAction);
    if (!accepted.includes(operator)) {
      throw badRequest(
        `${path}: operator "${operator}" is not accepted by column "${field.label}" of type ${field.type}; accepted: ${accepted.join(' ')}`,
      );
    }
    ruleCount += 1;
    return { kind: 'rule', field, operator, value: checkValue(operator, record, path), path };
  };

  const top = group(raw, 'filters', 1);
  return { group: top, ruleCount, canonical: JSON.stringify(canonical(top)) };
}

function checkValue(operator: Operator, record: Record<string, unknown>, path: string): FilterValue | undefined {
  const where = `${path}.value`;
  if (VALUELESS_OPERATORS.includes(operator)) {
    if ('value' in record) throw badRequest(`${where}: operator "${operator}" takes no value`);
    return undefined;
  }
  if (!('value' in record) || record.value === undefined) throw badRequest(`${where}: operator "${operator}" needs a value`);
  const { value } = record;
  if (LIST_OPERATORS.includes(operator)) {
    if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
      throw badRequest(`${where}: operator "${operator}" needs a list of strings`);
    }
    maxChars(value, where);
    return value as string[];
  }
  if (operator === 'isDatePreset') {
    if (typeof value !== 'string' || !(DATE_PRESETS as readonly string[]).includes(value)) {
      throw badRequest(`${where}: isDatePreset needs one of: ${DATE_PRESETS.join(' ')}`);
    }
    return value;
  }
  if (operator === 'between') {
    const range = plainObject(value, where, 'an object {start, end} of ISO 8601 date-times');
    onlyMembers(range, where, ['start', 'end']);
    for (const end of ['start', 'end'] as const) {
      if (typeof range[end] !== 'string') throw badRequest(`${where}.${end} is required: an ISO 8601 date-time`);
    }
    const between = { start: range.start as string, end: range.end as string };
    maxChars(between, where);
    for (const end of ['start', 'end'] as const) {
      if (parseDateTime(between[end]) === undefined) throw badRequest(`${where}.${end}: "${between[end]}" is not an ISO 8601 date-time`);
    }
    return between;
  }
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
    throw badRequest(`${where}: operator "${operator}" needs text, a number or true/false`);
  }
  maxChars(value, where);
  return value;
}

/** The limit holds for the value as sent: text as it is, any other value as its JSON text (service-api.md 4.5). */
function maxChars(value: FilterValue, where: string): void {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  if (text.length > FILTER_VALUE_MAX_CHARS) {
    const asJson = typeof value === 'string' ? '' : ' as JSON text';
    throw badRequest(`${where} is ${text.length} characters${asJson}; a filter value is at most ${FILTER_VALUE_MAX_CHARS}`);
  }
}

function plainObject(value: unknown, path: string, what: string): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw badRequest(`${path} must be ${what}`);
  return value as Record<string, unknown>;
}

export function onlyMembers(record: Record<string, unknown>, path: string, allowed: readonly string[]): void {
  const unknown = Object.keys(record).filter((key) => !allowed.includes(key));
  if (unknown.length > 0) {
    throw badRequest(
      `${path} has unknown member${unknown.length > 1 ? 's' : ''} ${unknown.map((key) => `"${key}"`).join(', ')}; allowed: ${allowed.join(', ')}`,
    );
  }
}

function canonical(entry: CheckedGroup | CheckedRule): unknown {
  if (entry.kind === 'rule') {
    const value = Array.isArray(entry.value) && entry.operator.endsWith('AnyOf') ? entry.value.slice(0, ANY_OF_MAX_ITEMS) : entry.value;
    return [entry.field.id, entry.operator, value ?? null];
  }
  return { [entry.combinator]: entry.entries.map(canonical) };
}
