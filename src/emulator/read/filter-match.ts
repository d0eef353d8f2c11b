import {
  ANY_OF_MAX_ITEMS,
  type DatePreset,
  type FilterValue,
  DATE_PRESETS,
  FILTER_MAX_DEPTH,
  FILTER_MAX_ENTRIES_PER_GROUP,
  FILTER_MAX_ENTRIES_TOTAL,
  FILTER_VALUE_MAX_CHARS,
  OPERATORS,
  VALUELESS_OPERATORS,
  acceptedOperators,
  isOperator,
  type Operator,
} from '../../service/index.js';
import { cellText, isEmptyValue, parseDateOrDateTime, parseDateTime, presetRange, type Range } from '../store/cell-values.js';
import { badRequest } from '../http/http-io.js';
import type { FieldRec, StoredCell, StoredRow } from '../store/model.js';

export type RowPredicate = (row: StoredRow) => boolean;

/*
 * What each operator means, per column type. "Empty" = no cell, or a value that is null, '' or [].
 *
 * | operators                                   | column types                     | meaning
 * |---------------------------------------------|----------------------------------|--------------------------------------------
 * | null / notNull                              | every type                       | value empty / not empty
 * | = != contains doesNotContain startsWith     | text email phone_number url      | case-insensitive on the value as text
 * | containsAnyOf doesNotContainAnyOf in notIn  | image formula action webhook     | (objects and numbers as JSON text); anyOf
 * |                                             |                                  | lists: entries past 20 ignored; in: equals any
 * | = != > >= < <=                              | number                           | numeric; the value may come as JSON text "42"
 * |                                             |                                  | (not "0x10", " 42", "Infinity"); else a 400
 * | = != (value true/false or "true"/"false")   | boolean                          | strict equality with the stored boolean; other
 * |                                             |                                  | text ("TRUE", "yes") is a 400
 * | = !=                                        | member                           | equals the member's id, email or name
 * |                                             |                                  | (case-insensitive)
 * | = < >   (ISO date or date-time)             | date                             | a date-only value is its whole UTC day: `=`
 * |                                             |                                  | that day, `<` before it, `>` after it; a
 * |                                             |                                  | date-time compares the exact instant
 * | isDatePreset                                | date                             | instant within the preset's UTC range at the
 * |                                             |                                  | emulator clock (weeks start Monday;
 * |                                             |                                  | lastNDays = the N days ending today)
 * | between {start, end}                        | date                             | start <= instant <= end (inclusive)
 * | = != in notIn                               | select                           | the stored option value, or that option's
 * |                                             |                                  | label, equals the value (case-insensitive)
 * | in notIn                                    | multi_select                     | any item (value or label) equals any entry
 * | hasError / hasNoError                       | action, webhook, runsAction      | status "failed" or an errorMessage / neither
 * | hasNotRun                                   | action, webhook, runsAction      | no status, or queued, waiting or stopped
 * | runConditionNotMet                          | action, webhook, runsAction      | status "skipped"
 * | isFound / isNotFound                        | action, webhook                  | a value is present / absent
 *
 * Negative operators (!=, doesNotContain, doesNotContainAnyOf, notIn, hasNoError) match empty cells.
 * An empty group matches every row.
 */
export function compileFilters(group: CheckedGroup, now: number): RowPredicate {
  const { sets, rest } = group.combinator === 'or' ? equalitySets(orEntries(group)) : { sets: [], rest: group.entries };
  const parts = [...sets, ...rest.map((entry) => (entry.kind === 'group' ? compileFilters(entry, now) : compileRule(entry, now)))];
  if (parts.length === 0) return () => true;
  return group.combinator === 'and' ? (row) => parts.every((part) => part(row)) : (row) => parts.some((part) => part(row));
}

function compileRule(rule: CheckedRule, now: number): RowPredicate {
  const { field, operator } = rule;
  const cellOf = (row: StoredRow): StoredCell | undefined => row.cells[field.id];
  const valueOf = (row: StoredRow): unknown => row.cells[field.id]?.value;
  switch (operator) {
    case 'null':
      return (row) => isEmptyValue(valueOf(row));
    case 'notNull':
      return (row) => !isEmptyValue(valueOf(row));
    case 'hasError':
      return (row) => hasError(cellOf(row));
    case 'hasNoError':
      return (row) => !hasError(cellOf(row));
    case 'hasNotRun':
      return (row) => {
        const status = cellOf(row)?.status ?? null;
        return status === null || status === 'queued' || status === 'waiting' || status === 'stopped';
      };
    case 'runConditionNotMet':
      return (row) => cellOf(row)?.status === 'skipped';
    case 'isFound':
      return (row) => !isEmptyValue(valueOf(row));
    case 'isNotFound':
      return (row) => isEmptyValue(valueOf(row));
    default:
      break;
  }
  const test = valueTest(rule, now);
  return (row) => test(valueOf(row));
}

const NOT_TEXT: ReadonlySet<string> = new Set(['number', 'boolean', 'member', 'date', 'select', 'multi_select']);

/**
 * The entries of an `or` group with its nested `or` groups opened (A or (B or C) is A or B or C), so
 * that the keys of a query packed as 97 rules in 4 groups make one set, and a row's cell is read and
 * lower-cased once instead of once per group. An empty nested group stays: it matches every row.
 */
export function orEntries(group: CheckedGroup): CheckedGroup['entries'] {
  return group.entries.flatMap((entry) =>
    entry.kind === 'group' && entry.combinator === 'or' && entry.entries.length > 0 ? orEntries(entry) : [entry],
  );
}

/**
 * Among the entries of an `or` group, the `=` and `in` rules on one text-like column match when the
 * cell's text is one of their values: one lookup in a set instead of a test per rule (a table of a
 * million rows and a query of 97 keys stay fast, as the service's own index would keep them).
 */
function equalitySets(entries: CheckedGroup['entries']): { sets: RowPredicate[]; rest: CheckedGroup['entries'] } {
  const byField = new Map<string, { field: FieldRec; values: Set<string> }>();
  const rest: CheckedGroup['entries'] = [];
  for (const entry of entries) {
    if (entry.kind === 'group' || NOT_TEXT.has(entry.field.type) || (entry.operator !== '=' && entry.operator !== 'in')) {
      rest.push(entry);
      continue;
    }
    const values = Array.isArray(entry.value) ? entry.value : [String(entry.value)];
    let set = byField.get(entry.field.id);
    if (!set) byField.set(entry.field.id, (set = { field: entry.field, values: new Set() }));
    for (const value of values) set.values.add(value.toLowerCase());
  }
  const sets = [...byField.values()].map(
    ({ field, values }): RowPredicate =>
      (row) =>
        values.has(cellText(row.cells[field.id]?.value).toLowerCase()),
  );
  return { sets, rest };
}

function hasError(cell: StoredCell | undefined): boolean {
  return cell?.status === 'failed' || !isEmptyValue(cell?.errorMessage);
}

/** A test of the cell value for the operators that take a value. */
function valueTest(rule: CheckedRule, now: number): (value: unknown) => boolean {
  const { field, operator, value } = rule;
  switch (field.type) {
    case 'number':
      return numberTest(rule);
    case 'boolean': {
      const wanted = toBoolean(value, rule);
      return operator === '=' ? (cell) => cell === wanted : (cell) => cell !== wanted;
    }
    case 'member': {
      const wanted = String(value).toLowerCase();
      const equals = (cell: unknown) => memberKeys(cell).includes(wanted);
      return operator === '=' ? equals : (cell) => !equals(cell);
    }
    case 'date':
      return dateTest(rule, now);
    case 'select':
    case 'multi_select': {
      const wanted = (Array.isArray(value) ? value : [String(value)]).map((item) => item.toLowerCase());
      const matches = (cell: unknown) => optionKeys(field, cell).some((key) => wanted.includes(key));
      return operator === '=' || operator === 'in' ? matches : (cell) => !matches(cell);
    }
    default:
      return textTest(rule);
  }
}

function textTest({ operator, value }: CheckedRule): (value: unknown) => boolean {
  const text = (cell: unknown) => cellText(cell).toLowerCase();
  if (Array.isArray(value)) {
    const list = (operator.endsWith('AnyOf') ? value.slice(0, ANY_OF_MAX_ITEMS) : value).map((item) => item.toLowerCase());
    if (operator === 'containsAnyOf') return (cell) => list.some((item) => text(cell).includes(item));
    if (operator === 'doesNotContainAnyOf') return (cell) => !list.some((item) => text(cell).includes(item));
    const set = new Set(list);
    if (operator === 'in') return (cell) => set.has(text(cell));
    return (cell) => !set.has(text(cell));
  }
  const wanted = String(value).toLowerCase();
  switch (operator) {
    case '=':
      return (cell) => text(cell) === wanted;
    case '!=':
      return (cell) => text(cell) !== wanted;
    case 'contains':
      return (cell) => text(cell).includes(wanted);
    case 'doesNotContain':
      return (cell) => !text(cell).includes(wanted);
    default:
      return (cell) => text(cell).startsWith(wanted);
  }
}

function numberTest(rule: CheckedRule): (value: unknown) => boolean {
  const wanted = typeof rule.value === 'string' ? numberOfJsonText(rule.value) : toNumber(rule.value);
  if (wanted === undefined)
    throw badRequest(`${rule.path}.value: column "${rule.field.label}" is a number column; the value must be a number`);
  const compare: Record<string, (a: number) => boolean> = {
    '=': (a) => a === wanted,
    '!=': (a) => a !== wanted,
    '>': (a) => a > wanted,
    '>=': (a) => a >= wanted,
    '<': (a) => a < wanted,
    '<=': (a) => a <= wanted,
  };
  const test = compare[rule.operator]!;
  return (cell) => {
    const number = toNumber(cell);
    return number === undefined ? rule.operator === '!=' : test(number);
  };
}

function dateTest(rule: CheckedRule, now: number): (value: unknown) => boolean {
  const { operator, value } = rule;
  let range: Range | undefined;
  if (operator === 'isDatePreset') range = presetRange(value as DatePreset, now);
  else if (operator === 'between') {
    const { start, end } = value as { start: string; end: string };
    range = [parseDateTime(start)!, parseDateTime(end)! + 1];
  } else range = typeof value === 'string' ? parseDateOrDateTime(value) : undefined;
  if (!range)
    throw badRequest(`${rule.path}.value: column "${rule.field.label}" is a date column; the value must be an ISO 8601 date or date-time`);
  const [start, end] = range;
  const inRange =
    operator === '<' ? (at: number) => at < start : operator === '>' ? (at: number) => at >= end : (at: number) => at >= start && at < end;
  return (cell) => {
    const at = typeof cell === 'string' ? Date.parse(cell) : Number.NaN;
    return !Number.isNaN(at) && inRange(at);
  };
}

function toNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  const number = Number(value);
  return Number.isFinite(number) ? number : undefined;
}

/** A number sent as JSON text ("42", "-1.5e3"); hex, blanks, "Infinity" and the like are not JSON numbers. */
function numberOfJsonText(text: string): number | undefined {
  return /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/.test(text) ? toNumber(text) : undefined;
}

function toBoolean(value: FilterValue | undefined, rule: CheckedRule): boolean {
  if (typeof value === 'boolean') return value;
  if (value === 'true' || value === 'false') return value === 'true';
  throw badRequest(`${rule.path}.value: column "${rule.field.label}" is a boolean column; the value must be true or false`);
}

function memberKeys(cell: unknown): string[] {
  if (typeof cell === 'string') return [cell.toLowerCase()];
  if (cell === null || typeof cell !== 'object') return [];
  const { id, email, name } = cell as Record<string, unknown>;
  return [id, email, name].filter((key): key is string => typeof key === 'string').map((key) => key.toLowerCase());
}

/** The stored option values of a select or multi_select cell, and their labels, lower-cased. */
function optionKeys(field: FieldRec, cell: unknown): string[] {
  const values = Array.isArray(cell) ? cell : cell === undefined || cell === null ? [] : [cell];
  return values.flatMap((item) => {
    const text = cellText(item);
    const label = field.options?.find((option) => option.value === text)?.label;
    return label === undefined ? [text.toLowerCase()] : [text.toLowerCase(), label.toLowerCase()];
  });
}

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

/** The shape and size rules of a filter group (docs/service-api.md 4.5); any breach is a 400 naming it. */
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

/** The limit holds for the value as sent: text as it is, any other value as its JSON text (docs/service-api.md 4.5). */
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
