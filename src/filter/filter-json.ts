import { describeJsonFault, didYouMean } from '../core/index.js';
import { FILTER_MAX_DEPTH, OPERATORS, type Field, type FilterGroup, type FilterRule, type Operator } from '../service/index.js';
import { FilterError, placed, quoted, type FilterLocation } from './errors.js';
import { operatorNamed, type WhereValue } from './parser.js';
import { RULES_MISSING, combinatorProblem, depthProblem, operatorProblem, raise, valueProblem } from './problems.js';
import { resolveColumn } from './resolve.js';
import { typeValue } from './type-value.js';

// --filter: the service's own filter group JSON. fieldIds may also be labels or names, and values
// are typed by column as --where values are; every problem names its JSON path.

type Json = Record<string, unknown>;

const GROUP_MEMBERS = ['combinator', 'rules'];
const RULE_MEMBERS = ['fieldId', 'operator', 'value'];
const GROUP_SHAPE = '{"combinator": "and" | "or", "rules": [...]}';

export function parseFilterJson(text: string, fields: Field[]): FilterGroup {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    // JSON.parse's message quotes the text, which may be anything (a key file given as @FILE by mistake)
    throw new FilterError(`not valid JSON (${describeJsonFault(text) ?? 'unreadable'})`, {
      hint: `--filter takes a filter group: ${GROUP_SHAPE}`,
      location: { source: '--filter' },
    });
  }
  if (isObject(data) && 'filters' in data && !('rules' in data)) {
    fail('', 'this is a whole request body, not a filter group', 'give --filter the value of "filters" only');
  }
  return toGroup(data, fields, '', 1);
}

function toGroup(data: unknown, fields: Field[], path: string, depth: number): FilterGroup {
  if (!isObject(data)) fail(path, `expected a filter group ${GROUP_SHAPE}, got ${kindOf(data)}`);
  if (depth > FILTER_MAX_DEPTH) raise(depthProblem(), at(path));
  checkMembers(data, GROUP_MEMBERS, path, 'a group');
  const group: FilterGroup = { rules: [] };
  if (data.combinator !== undefined) {
    const combinator = typeof data.combinator === 'string' ? data.combinator.toLowerCase() : data.combinator;
    raise(combinatorProblem(combinator), at(member(path, 'combinator')));
    group.combinator = combinator as FilterGroup['combinator'];
  }
  if (!Array.isArray(data.rules)) fail(member(path, 'rules'), RULES_MISSING.message);
  group.rules = data.rules.map((entry: unknown, index: number) => {
    const entryPath = member(path, `rules[${index}]`);
    return isObject(entry) && ('rules' in entry || 'combinator' in entry)
      ? toGroup(entry, fields, entryPath, depth + 1)
      : toRule(entry, fields, entryPath);
  });
  return group;
}

function toRule(data: unknown, fields: Field[], path: string): FilterRule {
  if (!isObject(data)) fail(path, `expected a rule {"fieldId", "operator", "value"} or a group, got ${kindOf(data)}`);
  checkMembers(data, RULE_MEMBERS, path, 'a rule');
  const fieldPath = member(path, 'fieldId');
  if (typeof data.fieldId !== 'string') fail(fieldPath, 'a rule needs "fieldId": a column ID, label or name');
  const field = placed(at(fieldPath), () => resolveColumn(data.fieldId as string, fields));
  const operator = operatorOf(data.operator, member(path, 'operator'));
  raise(operatorProblem(operator, field), at(member(path, 'operator')));
  const valuePath = member(path, 'value');
  // A null value is read as no value: what the valueless operators want.
  const written = data.value === undefined || data.value === null ? undefined : toWhereValue(data.value, valuePath);
  const value = placed(at(valuePath), () => typeValue(written, operator, field));
  raise(valueProblem(operator, value), at(valuePath));
  const rule: FilterRule = { fieldId: field.id, operator };
  if (value !== undefined) rule.value = value;
  return rule;
}

function operatorOf(data: unknown, path: string): Operator {
  if (typeof data !== 'string') fail(path, 'a rule needs "operator": one of the service\'s operators');
  const operator = operatorNamed(data);
  if (operator) return operator;
  const suggestion = didYouMean(data, OPERATORS);
  return fail(path, `unknown operator ${quoted(data)}`, `${suggestion ? `${suggestion} ` : ''}operators: ${OPERATORS.join(' ')}`);
}

/** JSON value → the same value as --where would have written it, so both are typed alike. */
function toWhereValue(data: unknown, path: string): WhereValue {
  if (Array.isArray(data)) return { type: 'list', items: data.map((item, index) => toScalar(item, `${path}[${index}]`)) };
  if (isObject(data)) {
    if (!('start' in data) || !('end' in data) || Object.keys(data).length !== 2) {
      fail(path, 'an object value must be a range {"start": …, "end": …}');
    }
    return { type: 'range', start: toScalar(data.start, member(path, 'start')), end: toScalar(data.end, member(path, 'end')) };
  }
  return toScalar(data, path);
}

function toScalar(data: unknown, path: string): WhereValue {
  if (typeof data === 'string') return { type: 'string', text: data };
  if (typeof data === 'number') return { type: 'number', text: String(data) };
  if (typeof data === 'boolean') return { type: 'boolean', value: data };
  return fail(path, `expected a string, number or true/false, got ${kindOf(data)}`);
}

function checkMembers(data: Json, allowed: string[], path: string, what: string): void {
  for (const key of Object.keys(data)) {
    if (allowed.includes(key)) continue;
    const suggestion = didYouMean(key, allowed);
    fail(member(path, key), `unknown member ${quoted(key)}`, `${suggestion ? `${suggestion} ` : ''}${what} has ${allowed.join(', ')}`);
  }
}

function fail(path: string, problem: string, hint?: string): never {
  throw new FilterError(problem, { hint, location: at(path) });
}

function at(path: string): FilterLocation {
  return path ? { source: '--filter', path } : { source: '--filter' };
}

function member(path: string, name: string): string {
  return path ? `${path}.${name}` : name;
}

function isObject(data: unknown): data is Json {
  return typeof data === 'object' && data !== null && !Array.isArray(data);
}

function kindOf(data: unknown): string {
  if (data === null) return 'null';
  if (Array.isArray(data)) return 'an array';
  return typeof data === 'object' ? 'an object' : `a ${typeof data}`;
}
