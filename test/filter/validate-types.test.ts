import { describe, expect, it } from 'vitest';
import { validateQuery } from '../../src/filter/validate.js';
import {
  COLUMN_TYPES,
  OPERATORS,
  RUN_STATUS_OPERATORS,
  acceptedOperators,
  type FilterRule,
  type QueryBody,
} from '../../src/service/index.js';
import { catchFilterError } from './catch-filter-error.js';
import { FILTER_FIELDS as fields } from '../helpers/schemas.js';

// validateQuery: which operators each column type takes.

const withRule = (rule: FilterRule | Record<string, unknown>): QueryBody => ({ filters: { rules: [rule as FilterRule] } });
const valid = (body: QueryBody) => expect(() => validateQuery(body, fields)).not.toThrow();
const invalid = (body: QueryBody) => catchFilterError(() => validateQuery(body, fields));

describe('validateQuery: operators by column type', () => {
  const byType = new Map(fields.map((field) => [field.type, field]));
  const cases = COLUMN_TYPES.flatMap((type) => OPERATORS.map((operator) => [type, operator] as const));

  it.each(cases)('%s column, %s', (type, operator) => {
    const field = byType.get(type);
    if (!field) throw new Error(`fixture lacks a ${type} column`);
    const body = withRule(sampleRule(field.id, operator));
    // The run-status operators are accepted on every column: the schema does not say which run an action or AI.
    if (acceptedOperators(type).includes(operator) || RUN_STATUS_OPERATORS.includes(operator)) {
      valid(body);
    } else {
      const error = invalid(body);
      expect(error.problem).toContain(
        `is of type ${type}, which does not accept ${operator}; it accepts ${acceptedOperators(type).join(', ')}`,
      );
      expect(error.location.path).toBe('filters.rules[0].operator');
    }
  });
});

function sampleRule(fieldId: string, operator: FilterRule['operator']): FilterRule {
  switch (operator) {
    case 'in':
    case 'notIn':
    case 'containsAnyOf':
    case 'doesNotContainAnyOf':
      return { fieldId, operator, value: ['a'] };
    case 'isDatePreset':
      return { fieldId, operator, value: 'today' };
    case 'between':
      return { fieldId, operator, value: { start: '2024-01-01T00:00:00Z', end: '2024-02-01T00:00:00Z' } };
    case 'null':
    case 'notNull':
    case 'hasError':
    case 'hasNoError':
    case 'hasNotRun':
    case 'runConditionNotMet':
    case 'isFound':
    case 'isNotFound':
      return { fieldId, operator };
    default:
      return { fieldId, operator, value: 'a' };
  }
}
