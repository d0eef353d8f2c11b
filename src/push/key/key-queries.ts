import {
  ANY_OF_MAX_ITEMS,
  FILTER_MAX_ENTRIES_PER_GROUP,
  FILTER_MAX_ENTRIES_TOTAL,
  FILTER_VALUE_MAX_CHARS,
  type FilterGroup,
  type FilterRule,
} from '../../service/index.js';
import type { KeyColumn } from './record-key.js';

/**
 * Keys packed into as few filter queries as the service's limits allow (docs/service-api.md 4.5): each
 * rule takes as many keys as its operator does (an `in` list up to 1,000 characters of JSON text, 20
 * for containsAnyOf, one for `=`); each query takes 97 rules, the most a group of 25 entries with
 * three nested groups of 25 can hold within 100 entries in all.
 */
export function packKeyQueries(column: KeyColumn, keys: readonly string[]): FilterGroup[] {
  const rules = packRules(column, keys);
  const queries: FilterGroup[] = [];
  for (let start = 0; start < rules.length; start += RULES_PER_QUERY) queries.push(orGroup(rules.slice(start, start + RULES_PER_QUERY)));
  return queries;
}

/** 22 rules beside 3 groups of 25 in the top group: 25 entries there, 100 in all. */
const NESTED_GROUPS = 3;
export const RULES_PER_QUERY = FILTER_MAX_ENTRIES_TOTAL - NESTED_GROUPS;

function orGroup(rules: FilterRule[]): FilterGroup {
  if (rules.length <= FILTER_MAX_ENTRIES_PER_GROUP) return { combinator: 'or', rules };
  const direct = FILTER_MAX_ENTRIES_PER_GROUP - NESTED_GROUPS;
  const top: Array<FilterRule | FilterGroup> = rules.slice(0, direct);
  for (let start = direct; start < rules.length; start += FILTER_MAX_ENTRIES_PER_GROUP) {
    top.push({ combinator: 'or', rules: rules.slice(start, start + FILTER_MAX_ENTRIES_PER_GROUP) });
  }
  return { combinator: 'or', rules: top };
}

function packRules(column: KeyColumn, keys: readonly string[]): FilterRule[] {
  const fieldId = column.field.id;
  if (column.operator === 'eq') {
    return keys.map((key) => ({ fieldId, operator: '=', value: column.field.type === 'number' ? Number(key) : key }));
  }
  const operator = column.operator === 'in' ? 'in' : 'containsAnyOf';
  const rules: FilterRule[] = [];
  let list: string[] = [];
  let chars = 2;
  for (const key of keys) {
    // a key whose JSON text (escapes and all) would not fit in a list on its own: an `=` rule of its own
    if (JSON.stringify(key).length + 2 > FILTER_VALUE_MAX_CHARS) {
      rules.push({ fieldId, operator: '=', value: key });
      continue;
    }
    const added = JSON.stringify(key).length + (list.length > 0 ? 1 : 0);
    const full = chars + added > FILTER_VALUE_MAX_CHARS || (operator === 'containsAnyOf' && list.length >= ANY_OF_MAX_ITEMS);
    if (full && list.length > 0) {
      rules.push({ fieldId, operator, value: list });
      list = [];
      chars = 2;
    }
    list.push(key);
    chars += JSON.stringify(key).length + (list.length > 1 ? 1 : 0);
  }
  if (list.length > 0) rules.push({ fieldId, operator, value: list });
  return rules;
}
