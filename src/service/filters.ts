import type { Operator } from './operators.js';

// The body of POST /tables/{tableId}/rows/query (service-api.md 4.5).

export type FilterValue = string | number | boolean | string[] | { start: string; end: string };

export interface FilterRule {
  fieldId: string;
  operator: Operator;
  value?: FilterValue;
}

export interface FilterGroup {
  combinator?: 'and' | 'or';
  rules: Array<FilterRule | FilterGroup>;
}

export interface QueryBody {
  limit?: number;
  cursor?: string;
  q?: string;
  query?: string;
  filters?: FilterGroup;
}

export function isFilterGroup(entry: FilterRule | FilterGroup): entry is FilterGroup {
  return Array.isArray((entry as FilterGroup).rules);
}
