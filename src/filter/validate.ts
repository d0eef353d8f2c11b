import {
  CURSOR_MAX_CHARS,
  FILTER_MAX_DEPTH,
  PAGE_LIMIT_MAX,
  PAGE_LIMIT_MIN,
  SEARCH_MAX_CHARS,
  isOperator,
  type Field,
  type FilterGroup,
  type QueryBody,
} from '../service/index.js';
import { FilterError, quoted } from './errors.js';
import {
  RULES_MISSING,
  combinatorProblem,
  depthProblem,
  groupSizeProblem,
  operatorProblem,
  raise,
  totalSizeProblem,
  valueProblem,
} from './problems.js';
import { didYouMean } from '../core/index.js';

// Every rule the service applies to a query body (docs/service-api.md 4.5 and 8), checked before any
// row request so that a bad query exits 2 with a clear message instead of a 400 mid-export.
// Lengths are counted in string units, as a JavaScript service would count them.

const BODY_MEMBERS = ['limit', 'cursor', 'q', 'query', 'filters'];

export function validateQuery(body: QueryBody, fields: Field[]): void {
  for (const key of Object.keys(body)) {
    if (!BODY_MEMBERS.includes(key)) fail(key, `the query body has no member ${quoted(key)}`);
  }
  const { limit, cursor } = body;
  if (limit !== undefined && !(Number.isInteger(limit) && limit >= PAGE_LIMIT_MIN && limit <= PAGE_LIMIT_MAX)) {
    fail('limit', `limit must be a whole number from ${PAGE_LIMIT_MIN} to ${PAGE_LIMIT_MAX}, got ${String(limit)}`);
  }
  if (cursor !== undefined && (typeof cursor !== 'string' || cursor.length > CURSOR_MAX_CHARS)) {
    fail('cursor', `the cursor must be a string of at most ${CURSOR_MAX_CHARS} characters`);
  }
  for (const key of ['q', 'query'] as const) {
    const text = body[key];
    if (text !== undefined && (typeof text !== 'string' || text.length > SEARCH_MAX_CHARS)) {
      const got = typeof text === 'string' ? `${text.length} characters long` : 'not a string';
      fail(key, `the search text is ${got}; the service accepts at most ${SEARCH_MAX_CHARS} characters`);
    }
  }
  if (body.filters !== undefined) {
    checkGroup(body.filters, 'filters', 1, { fields: new Map(fields.map((field) => [field.id, field])), entries: 0 });
  }
}

/** What a walk of the filter groups knows: the table's fields by ID, and the entries seen so far. */
interface FilterWalk {
  fields: Map<string, Field>;
  entries: number;
}

function checkGroup(group: FilterGroup, path: string, depth: number, walk: FilterWalk): void {
  if (depth > FILTER_MAX_DEPTH) raise(depthProblem(), { path });
  if (typeof group !== 'object' || group === null || !Array.isArray(group.rules)) raise(RULES_MISSING, { path });
  raise(combinatorProblem(group.combinator), { path: `${path}.combinator` });
  raise(groupSizeProblem(group.rules.length), { path: `${path}.rules` });
  walk.entries += group.rules.length;
  raise(totalSizeProblem(walk.entries), { path });
  group.rules.forEach((entry, index) => {
    const entryPath = `${path}.rules[${index}]`;
    if (typeof entry === 'object' && entry !== null && 'rules' in entry) {
      checkGroup(entry, entryPath, depth + 1, walk);
      return;
    }
    if (typeof entry !== 'object' || entry === null) fail(entryPath, 'expected a rule or a group');
    const { fieldId, operator } = entry;
    const field = walk.fields.get(fieldId);
    if (!field) {
      const suggestion = didYouMean(String(fieldId), walk.fields.keys());
      fail(`${entryPath}.fieldId`, `unknown fieldId ${quoted(fieldId)}`, suggestion ?? '`tds schema TABLE` lists the column IDs');
    }
    if (!isOperator(operator)) fail(`${entryPath}.operator`, `unknown operator ${quoted(operator)}`);
    raise(operatorProblem(operator, field), { path: `${entryPath}.operator` });
    raise(valueProblem(operator, entry.value), { path: `${entryPath}.value` });
  });
}

function fail(path: string, problem: string, hint?: string): never {
  throw new FilterError(problem, { hint, location: { path } });
}
