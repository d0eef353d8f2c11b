import type { IncomingMessage } from 'node:http';
import type { RowsPage, SchemaResponse, TablesResponse, WorkspacesResponse } from '../../service/index.js';
import { ApiProblem, badRequest } from '../http/errors.js';
import { isJsonContentType, readBody } from '../http/http-io.js';
import { cellText } from '../store/cells.js';
import type { FieldRec, OrgRec, RowSource, StoredRow, TableRec } from '../store/model.js';
import type { EmulatorState } from '../store/state.js';
import type { CursorCodec, CursorPosition, CursorScope } from './cursor.js';
import { compileFilters, type RowPredicate } from './filter-match.js';
import { parseQueryBody, parseRowsParams, singleParams, type PageRequest } from './page-request.js';
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
  const { rows, hasNextPage } = readPage(table.rows, { order, limit, ...(after ? { after } : {}), ...(match ? { match } : {}) });
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
