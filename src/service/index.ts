// The service contract, as service-api.md states it, in one file: the resources (workspaces, tables,
// fields, rows, cells and their statuses, response bodies), the numbers it fixes (page, cursor, filter,
// webhook and cell limits, rate limits, intake timings), the filter operators each column type accepts
// with the date presets, and the body of a rows query (filter groups and rules). The only code the
// emulator shares with the client.

// --- Resources (service-api.md section 2) ---

export interface Workspace {
  id: string;
  name: string;
  tableCount: number;
}

export interface Table {
  id: string;
  name: string;
  emoji: string | null;
  workspaceId: string;
  workspaceName: string;
  rowCount: number;
  fieldCount: number;
}

export const COLUMN_TYPES = [
  'text',
  'number',
  'boolean',
  'date',
  'email',
  'phone_number',
  'url',
  'image',
  'select',
  'multi_select',
  'object',
  'formula',
  'action',
  'webhook',
  'member',
  'input',
] as const;
export type ColumnType = (typeof COLUMN_TYPES)[number];

export interface FieldOption {
  label: string;
  value: string;
}

export interface Field {
  id: string;
  name: string;
  label: string;
  type: ColumnType;
  options: FieldOption[] | null;
  isSystem: boolean;
}

export const CELL_STATUSES = ['manual', 'success', 'failed', 'skipped', 'stopped', 'queued', 'waiting', 'running'] as const;
export type CellStatus = (typeof CELL_STATUSES)[number];
/** A cell whose action has not finished: it will change without anyone writing to the row. */
export const UNFINISHED_STATUSES = ['queued', 'waiting', 'running'] as const satisfies readonly CellStatus[];

/** All members optional; no other members exist. */
export interface Cell {
  value?: unknown;
  status?: CellStatus | null;
  isTruncated?: boolean;
  valuePreview?: string;
  errorMessage?: unknown;
}

export interface Row {
  id: string;
  tableId: string;
  createdAt: string;
  updatedAt: string;
  createdByUserId: string | null;
  cells: Record<string, Cell>;
}

export interface WorkspacesResponse {
  workspaces: Workspace[];
  total: number;
}

export interface TablesResponse {
  tables: Table[];
  total: number;
}

export interface SchemaResponse {
  table: { id: string; name: string };
  fields: Field[];
}

export interface RowsPage {
  rows: Row[];
  limit: number;
  nextCursor: string | null;
  hasNextPage: boolean;
}

/** Error body on key endpoints: `error` is always "API Error". On webhook endpoints `error` names the problem. */
export interface ApiErrorBody {
  statusCode: number;
  error: string;
  message: string;
}

export interface WebhookSuccessBody {
  success: boolean;
  message: string;
}

// --- Numbers fixed by service-api.md (sections 4 and 8) ---

export const PAGE_LIMIT_MIN = 1;
export const PAGE_LIMIT_MAX = 100;
export const PAGE_LIMIT_DEFAULT = 100;
export const CURSOR_MAX_CHARS = 500;
export const SEARCH_MAX_CHARS = 100;

export const FILTER_MAX_DEPTH = 5; // counting the top-level group
export const FILTER_MAX_ENTRIES_PER_GROUP = 25;
export const FILTER_MAX_ENTRIES_TOTAL = 100;
export const FILTER_VALUE_MAX_CHARS = 1000;
export const ANY_OF_MAX_ITEMS = 20; // containsAnyOf / doesNotContainAnyOf: extra entries are ignored by the service

export const WEBHOOK_MAX_OBJECTS = 500;
export const WEBHOOK_MAX_BODY_BYTES = 1_000_000; // "1 MB"

export const CELL_MAX_CHARS = 200; // longer values are cut in row responses

export const RATE_LIMITS = {
  /** workspace, table and schema reads, per organization */
  metadata: { requests: 300, perMs: 60_000 },
  /** GET rows and POST rows/query, per organization */
  rows: { requests: 60, perMs: 60_000 },
  /** requests with a missing or wrong key, per IP address and key */
  badKey: { requests: 60, perMs: 60_000 },
  /** webhook requests, per IP address */
  webhook: { requests: 100, perMs: 1_000 },
} as const;
export type RateLimitName = keyof typeof RATE_LIMITS;

/** Client default wait when a 429 carries no retry-after header. */
export const DEFAULT_RETRY_AFTER_SECONDS = 10;

/** Webhook intake: rows appear about 5 s after the last request, at most about 30 s while requests keep arriving. */
export const INTAKE_QUIET_MS = 5_000;
export const INTAKE_MAX_MS = 30_000;

// --- Filter operators and which column types accept them (service-api.md 4.5) ---

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

// --- The body of POST /tables/{tableId}/rows/query (service-api.md 4.5) ---

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
