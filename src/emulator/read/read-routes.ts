import type { IncomingMessage } from 'node:http';
import type { RowsPage, SchemaResponse, TablesResponse, WorkspacesResponse } from '../../service/index.js';
import type { CursorCodec, CursorScope } from './cursor.js';
import { ApiProblem, badRequest } from '../http/errors.js';
import { compileFilters, type RowPredicate } from './filter-match.js';
import { isJsonContentType, readBody } from '../http/http-io.js';
import type { OrgRec, TableRec } from '../store/model.js';
import { publicField } from './public-field.js';
import { parseQueryBody, parseRowsParams, singleParams, type PageRequest } from './page-request.js';
import { readPage } from './paginate.js';
import { searchPredicate } from './search.js';
import { renderRow } from './render-row.js';
import type { EmulatorState } from '../store/state.js';

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
