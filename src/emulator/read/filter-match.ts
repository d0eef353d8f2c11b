import { ANY_OF_MAX_ITEMS, type DatePreset, type FilterValue } from '../../service/index.js';
import { cellText, isEmptyValue } from '../store/cells.js';
import { parseDateOrDateTime, parseDateTime, presetRange, type Range } from '../store/dates.js';
import { badRequest } from '../http/errors.js';
import type { CheckedGroup, CheckedRule } from './filter-check.js';
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
  const { sets, rest } = group.combinator === 'or' ? equalitySets(group) : { sets: [], rest: group.entries };
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
 * In an `or` group, the `=` and `in` rules on one text-like column match when the cell's text is one
 * of their values: one lookup in a set instead of a test per rule (a table of a million rows and a
 * query of 97 keys stay fast, as the service's own index would keep them).
 */
function equalitySets(group: CheckedGroup): { sets: RowPredicate[]; rest: CheckedGroup['entries'] } {
  const byField = new Map<string, { field: FieldRec; values: Set<string> }>();
  const rest: CheckedGroup['entries'] = [];
  for (const entry of group.entries) {
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
