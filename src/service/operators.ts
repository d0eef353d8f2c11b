import type { ColumnType } from './types.js';

// Filter operators and which column types accept them (service-api.md 4.5).

export const OPERATORS = [
  '=',
  '!=',
  '>',
  '>=',
  '<',
  '<=',
  'contains',
  'doesNotContain',
  'startsWith',
  'containsAnyOf',
  'doesNotContainAnyOf',
  'in',
  'notIn',
  'null',
  'notNull',
  'isDatePreset',
  'between',
  'hasError',
  'hasNoError',
  'hasNotRun',
  'runConditionNotMet',
  'isFound',
  'isNotFound',
] as const;
export type Operator = (typeof OPERATORS)[number];

const TEXTUAL = ['=', '!=', 'contains', 'doesNotContain', 'startsWith'] as const;
const ANY_OF = ['containsAnyOf', 'doesNotContainAnyOf'] as const;
const IN = ['in', 'notIn'] as const;
const RUN_STATUS = ['hasError', 'hasNoError', 'hasNotRun', 'runConditionNotMet'] as const;

/** Operators accepted by each column type, besides `null`/`notNull` which every column accepts. */
export const OPERATORS_BY_TYPE: Readonly<Record<ColumnType, readonly Operator[]>> = {
  text: [...TEXTUAL, ...ANY_OF, ...IN],
  url: [...TEXTUAL, ...ANY_OF],
  image: [...TEXTUAL, ...ANY_OF],
  formula: [...TEXTUAL, ...ANY_OF],
  email: [...TEXTUAL],
  phone_number: [...TEXTUAL],
  number: ['=', '!=', '>', '>=', '<', '<='],
  date: ['=', '<', '>', 'isDatePreset', 'between'],
  boolean: ['=', '!='],
  member: ['=', '!='],
  select: ['=', '!=', ...IN],
  multi_select: [...IN],
  action: [...TEXTUAL, ...RUN_STATUS, 'isFound', 'isNotFound'],
  webhook: [...TEXTUAL, ...RUN_STATUS, 'isFound', 'isNotFound'],
  object: [],
  input: [],
};

export const UNIVERSAL_OPERATORS: readonly Operator[] = ['null', 'notNull'];
/** Also accepted on any column that runs an action or AI, whatever its type. */
export const RUN_STATUS_OPERATORS: readonly Operator[] = RUN_STATUS;
/** Operators that take no value. */
export const VALUELESS_OPERATORS: readonly Operator[] = ['null', 'notNull', ...RUN_STATUS, 'isFound', 'isNotFound'];

export const DATE_PRESETS = [
  'today',
  'tomorrow',
  'yesterday',
  'thisWeek',
  'lastWeek',
  'thisMonth',
  'lastMonth',
  'thisQuarter',
  'lastQuarter',
  'thisYear',
  'lastYear',
  'last7Days',
  'last14Days',
  'last30Days',
  'last60Days',
  'last90Days',
  'last180Days',
  'last365Days',
] as const;
export type DatePreset = (typeof DATE_PRESETS)[number];

/**
 * Operators a column accepts. `runsAction` is true for a column that runs an action or AI
 * (the run-status operators then apply whatever its type).
 */
export function acceptedOperators(type: ColumnType, runsAction = false): Operator[] {
  const set = new Set<Operator>([...OPERATORS_BY_TYPE[type], ...UNIVERSAL_OPERATORS]);
  if (runsAction) for (const op of RUN_STATUS_OPERATORS) set.add(op);
  return OPERATORS.filter((op) => set.has(op));
}

export function isOperator(token: string): token is Operator {
  return (OPERATORS as readonly string[]).includes(token);
}
