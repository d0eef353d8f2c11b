import type { IncomingMessage } from 'node:http';
import {
  type RowsPage,
  type SchemaResponse,
  type TablesResponse,
  type WorkspacesResponse,
  CURSOR_MAX_CHARS,
  PAGE_LIMIT_DEFAULT,
  PAGE_LIMIT_MAX,
  PAGE_LIMIT_MIN,
  SEARCH_MAX_CHARS,
} from '../../service/index.js';
import { ApiProblem, badRequest, isJsonContentType, readBody } from '../http/http-io.js';
import { cellText } from '../store/cell-values.js';
import type { FieldRec, OrgRec, RowSource, StoredRow, TableRec } from '../store/model.js';
import type { EmulatorState } from '../store/state.js';
import type { CursorCodec, CursorPosition, CursorScope } from './cursor.js';
import { compileFilters, type RowPredicate, checkFilters, onlyMembers, type CheckedFilters } from './filter-match.js';
import { keyedRows } from './key-index.js';
import { publicField, renderRow } from './render-row.js';

/** A query body bigger than this is refused (the spec's limits keep real bodies far below it). */
const QUERY_BODY_MAX_BYTES = 1_000_000;

export interface ReadDeps {
  state: EmulatorState;
  cursors: CursorCodec;
  now: () => number;
}

export function listWorkspaces({ state }: ReadDeps, org: OrgRec, params: URLSearchParams): WorkspacesResponse {
  singleParams(params, []);
  const workspaces = state.listWorkspaces(org);
  return { workspaces, total: workspaces.length };
}

export function listTables({ state }: ReadDeps, org: OrgRec, params: URLSearchParams): TablesResponse {
  const workspaceId = singleParams(params, ['workspaceId']).get('workspaceId');
  if (workspaceId === '') throw badRequest('workspaceId must be at least 1 character');
  const tables = state.listTables(org, workspaceId);
  return { tables, total: tables.length };
}

export function tableSchema(deps: ReadDeps, org: OrgRec, tableId: string, params: URLSearchParams): SchemaResponse {
  const table = findTable(deps, org, tableId);
  singleParams(params, []);
  return {
    table: { id: table.id, name: table.name },
    fields: table.fields.map(publicField),
  };
}

export function rowsPage(deps: ReadDeps, org: OrgRec, tableId: string, params: URLSearchParams): RowsPage {
  const table = findTable(deps, org, tableId);
  return page(deps, table, 'rows', parseRowsParams(params));
}

export async function queryPage(
  deps: ReadDeps,
  org: OrgRec,
  tableId: string,
  { req, query: params }: { req: IncomingMessage; query: URLSearchParams },
): Promise<RowsPage> {
  const table = findTable(deps, org, tableId);
  singleParams(params, []);
  if (!isJsonContentType(req)) throw badRequest('Content-Type must be application/json');
  const read = await readBody(req, QUERY_BODY_MAX_BYTES);
  if ('tooLarge' in read) throw badRequest(`body is over ${QUERY_BODY_MAX_BYTES} bytes`);
  let body: unknown;
  try {
    body = JSON.parse(read.body.toString('utf8'));
  } catch {
    throw badRequest(read.body.length === 0 ? 'body is required: a JSON object' : 'body is not valid JSON');
  }
  return page(deps, table, 'query', parseQueryBody(body, table.fields));
}

function page(deps: ReadDeps, table: TableRec, endpoint: CursorScope['endpoint'], request: PageRequest): RowsPage {
  const { search, filters, limit } = request;
  const scope: CursorScope = { endpoint, tableId: table.id, search, filters: filters?.canonical ?? '' };
  const matchers: RowPredicate[] = [];
  if (filters && filters.ruleCount > 0) matchers.push(compileFilters(filters.group, deps.now()));
  if (search !== '') matchers.push(searchPredicate(search, table.fields));
  const after = request.cursor === undefined ? undefined : deps.cursors.decode(request.cursor, scope);
  const order = matchers.length > 0 ? 'id' : 'newest';
  const match: RowPredicate | undefined =
    matchers.length === 0 ? undefined : matchers.length === 1 ? matchers[0] : (row) => matchers.every((matcher) => matcher(row));
  const source = (match && search === '' && filters && keyedRows(table.rows, filters.group)) || table.rows;
  const { rows, hasNextPage } = readPage(source, { order, limit, ...(after ? { after } : {}), ...(match ? { match } : {}) });
  const last = rows[rows.length - 1];
  const nextCursor =
    hasNextPage && last
      ? deps.cursors.encode(scope, order === 'newest' ? { id: last.id, createdAt: last.createdAt } : { id: last.id })
      : null;
  return { rows: rows.map((row) => renderRow(row, table.id, table.fields)), limit, nextCursor, hasNextPage };
}

function findTable({ state }: ReadDeps, org: OrgRec, tableId: string): TableRec {
  if (tableId === '') throw badRequest('tableId must be at least 1 character');
  const table = state.tableOf(org, tableId);
  if (!table) throw new ApiProblem(404, `Table ${tableId} not found`);
  return table;
}

/** Case-insensitive substring search across every cell's value (objects as JSON text). */
export function searchPredicate(search: string, fields: readonly FieldRec[]): RowPredicate {
  const needle = search.toLowerCase();
  const ids = fields.map((field) => field.id);
  return (row) => {
    for (const id of ids) {
      const cell = row.cells[id];
      if (cell !== undefined && cellText(cell.value).toLowerCase().includes(needle)) return true;
    }
    return false;
  };
}

export interface PageQuery {
  /** Newest first (createdAt then id, descending), or ascending by row id. */
  order: 'newest' | 'id';
  after?: CursorPosition;
  limit: number;
  match?: RowPredicate;
}

export interface Page {
  rows: StoredRow[];
  hasNextPage: boolean;
}

/**
 * One page, resumed just past the cursor's row by its sort key (not an offset), so rows that arrive or go
 * between pages never make a page skip or repeat a row that stays. A plain page touches only the rows it
 * returns; a filtered page scans from the cursor until it has `limit` matches and knows whether one more exists.
 */
export function readPage(source: RowSource, query: PageQuery): Page {
  const rows: StoredRow[] = [];
  const { match, limit, after } = query;
  const walk =
    query.order === 'newest'
      ? source.newest(after === undefined ? undefined : { id: after.id, createdAt: after.createdAt ?? 0 })
      : source.byId(after?.id);
  for (const row of walk) {
    if (match && !match(row)) continue;
    if (rows.length === limit) return { rows, hasNextPage: true };
    rows.push(row);
  }
  return { rows, hasNextPage: false };
}

/** A validated request for a page of rows (GET …/rows or POST …/rows/query). */
export interface PageRequest {
  limit: number;
  cursor?: string;
  /** '' when there is no search text. */
  search: string;
  filters?: CheckedFilters;
}

/** GET …/rows: `limit`, `cursor`, `q`; nothing else, each at most once. */
export function parseRowsParams(params: URLSearchParams): PageRequest {
  const single = singleParams(params, ['limit', 'cursor', 'q']);
  const limitText = single.get('limit');
  let limit = PAGE_LIMIT_DEFAULT;
  if (limitText !== undefined) {
    if (!/^\d+$/.test(limitText)) throw limitError(limitText);
    limit = checkLimit(Number(limitText), limitText);
  }
  const cursor = single.get('cursor');
  if (cursor !== undefined) checkCursor(cursor);
  const q = single.get('q');
  if (q !== undefined) checkSearch(q, 'q');
  return { limit, ...(cursor !== undefined ? { cursor } : {}), search: q ?? '' };
}

/** POST …/rows/query: a JSON object with only limit, cursor, q, query and filters. `query` wins over `q`, even empty. */
export function parseQueryBody(body: unknown, fields: readonly FieldRec[]): PageRequest {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw badRequest('body must be a JSON object');
  const record = body as Record<string, unknown>;
  onlyMembers(record, 'body', ['limit', 'cursor', 'q', 'query', 'filters']);
  let limit = PAGE_LIMIT_DEFAULT;
  if ('limit' in record) {
    if (typeof record.limit !== 'number' || !Number.isInteger(record.limit)) throw limitError(shownValue(record.limit));
    limit = checkLimit(record.limit, String(record.limit));
  }
  const { cursor, q, query } = record;
  if ('cursor' in record) {
    if (typeof cursor !== 'string') throw badRequest('cursor must be a string: the nextCursor of the previous page');
    checkCursor(cursor);
  }
  for (const [name, value] of [
    ['q', q],
    ['query', query],
  ] as const) {
    if (name in record) {
      if (typeof value !== 'string') throw badRequest(`${name} must be a string`);
      checkSearch(value, name);
    }
  }
  const search = typeof query === 'string' ? query : typeof q === 'string' ? q : '';
  const filters = 'filters' in record ? checkFilters(record.filters, fields) : undefined;
  return { limit, ...(typeof cursor === 'string' ? { cursor } : {}), search, ...(filters ? { filters } : {}) };
}

/** Query parameters of a route: only `allowed` ones, each at most once. */
export function singleParams(params: URLSearchParams, allowed: readonly string[]): Map<string, string> {
  const single = new Map<string, string>();
  for (const [name, value] of params) {
    if (!allowed.includes(name)) {
      throw badRequest(
        `unknown query parameter "${name}"${allowed.length ? `; allowed: ${allowed.join(', ')}` : '; this route takes none'}`,
      );
    }
    if (single.has(name)) throw badRequest(`query parameter "${name}" is given more than once`);
    single.set(name, value);
  }
  return single;
}

function checkLimit(limit: number, shown: string): number {
  if (limit < PAGE_LIMIT_MIN || limit > PAGE_LIMIT_MAX) throw limitError(shown);
  return limit;
}

/** A short view of any JSON value for a message: never its whole text, which may be huge or too deep to print. */
function shownValue(value: unknown): string {
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  if (typeof value === 'string') return JSON.stringify(value.length > 20 ? `${value.slice(0, 20)}…` : value);
  return Array.isArray(value) ? 'an array' : 'an object';
}

function limitError(shown: string) {
  return badRequest(`limit must be a whole number from ${PAGE_LIMIT_MIN} to ${PAGE_LIMIT_MAX} (got ${shown})`);
}

function checkCursor(cursor: string): void {
  if (cursor.length > CURSOR_MAX_CHARS) throw badRequest(`cursor is ${cursor.length} characters; a cursor is at most ${CURSOR_MAX_CHARS}`);
  if (cursor === '') throw badRequest('cursor is empty: leave it out for the first page');
}

function checkSearch(text: string, name: string): void {
  if (text.length > SEARCH_MAX_CHARS) throw badRequest(`${name} is ${text.length} characters; search text is at most ${SEARCH_MAX_CHARS}`);
}
