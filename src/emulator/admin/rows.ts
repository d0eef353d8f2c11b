import { adminTable } from './lookup.js';
import { allowOnly, asObject, readJsonObject } from './body.js';
import { parseCells, resolveFieldRef } from '../store/field-input.js';
import { parseDateTime } from '../store/dates.js';
import { ApiProblem, badRequest } from '../http/http-io.js';
import { freshId } from '../store/ids.js';
import type { StoredCell, StoredRow, TableRec } from '../store/model.js';
import { renderRow } from '../read/render-row.js';
import { ok, type Reply, type RouteCall } from '../http/server-deps.js';

/** Rows in one admin request, at most. */
export const ADMIN_MAX_ROWS = 100_000;

/** POST /_emulator/tables/{tableId}/rows {rows: [{cells, createdAt?, createdByUserId?}]} -> 201 {rows} */
export async function addRows({ deps, req, params }: RouteCall): Promise<Reply> {
  const table = adminTable(deps.state, params.tableId!);
  const body = await readJsonObject(req);
  allowOnly(body, 'body', ['rows']);
  if (!Array.isArray(body.rows) || body.rows.length === 0 || body.rows.length > ADMIN_MAX_ROWS) {
    throw badRequest(`body.rows is required: an array of 1 to ${ADMIN_MAX_ROWS} rows {cells, createdAt?, createdByUserId?}`);
  }
  const now = deps.clock.now();
  const given = new Map<StoredRow, ReadonlySet<string>>();
  const rows = body.rows.map((raw: unknown, i) => {
    const { row, sent } = newRow(table, raw, `body.rows[${i}]`, now);
    given.set(row, sent);
    return row;
  });
  deps.live.arrive(table, rows, (row, fieldId) => given.get(row)?.has(fieldId) === true);
  return ok({ rows: rows.map((row) => renderRow(row, table.id, table.fields)) }, 201);
}

/** A row from its spec, and the fields whose cells were sent (null included: those do not run). */
function newRow(table: TableRec, raw: unknown, where: string, now: number): { row: StoredRow; sent: ReadonlySet<string> } {
  const spec = asObject(raw, where);
  allowOnly(spec, where, ['cells', 'createdAt', 'createdByUserId']);
  let createdAt = now;
  if (spec.createdAt !== undefined) {
    const at = typeof spec.createdAt === 'string' ? parseDateTime(spec.createdAt) : undefined;
    if (at === undefined) throw badRequest(`${where}.createdAt must be an ISO 8601 date-time, such as "2025-01-31T09:30:00Z"`);
    createdAt = at;
  }
  const by = spec.createdByUserId;
  if (by !== undefined && by !== null && (typeof by !== 'string' || by === '')) {
    throw badRequest(`${where}.createdByUserId must be a member id (a non-empty string) or null`);
  }
  const cells: Record<string, StoredCell> = {};
  const system = table.fields.find((field) => field.isSystem && field.type === 'date');
  if (system) cells[system.id] = { value: new Date(createdAt).toISOString() };
  const changes = spec.cells === undefined ? {} : parseCells(spec.cells, table.fields, `${where}.cells`);
  for (const [fieldId, cell] of Object.entries(changes)) {
    if (cell === null) delete cells[fieldId];
    else cells[fieldId] = cell;
  }
  const row = { id: freshId('row_', 16), createdAt, updatedAt: createdAt, createdByUserId: typeof by === 'string' ? by : null, cells };
  return { row, sent: new Set(Object.keys(changes)) };
}

/** PATCH /_emulator/tables/{tableId}/rows/{rowId} {cells} -> 200 {row} */
export async function updateRow({ deps, req, params }: RouteCall): Promise<Reply> {
  const table = adminTable(deps.state, params.tableId!);
  const body = await readJsonObject(req);
  allowOnly(body, 'body', ['cells']);
  if (body.cells === undefined) throw badRequest('body.cells is required: {"<field ID, label or name>": value, …}');
  const changes = parseCells(body.cells, table.fields, 'body.cells');
  const row = deps.live.update(table, params.rowId!, changes);
  if (!row) throw new ApiProblem(404, `Row ${params.rowId} not found in table ${table.id}`);
  return ok({ row: renderRow(row, table.id, table.fields) });
}

/** DELETE /_emulator/tables/{tableId}/rows/{rowId} -> 200 {deleted: 1} */
export function deleteRow({ deps, params }: RouteCall): Reply {
  const table = adminTable(deps.state, params.tableId!);
  if (!deps.live.remove(table, params.rowId!)) throw new ApiProblem(404, `Row ${params.rowId} not found in table ${table.id}`);
  return ok({ deleted: 1 });
}

/**
 * POST /_emulator/tables/{tableId}/actions/rerun {field?, rows?: [...]} -> 200 {queued: N}: what "re-run
 * column" does on the service. The action cells of the rows named (every row without `rows`), of the
 * action column `field` (ID, label or name; every action column without it), go back to queued and run
 * again, moving each row's updatedAt as they go.
 */
export async function rerunActions({ deps, req, params }: RouteCall): Promise<Reply> {
  const table = adminTable(deps.state, params.tableId!);
  const body = await readJsonObject(req);
  allowOnly(body, 'body', ['field', 'rows']);
  const { rows, field } = body;
  if (
    rows !== undefined &&
    (!Array.isArray(rows) || rows.length > ADMIN_MAX_ROWS || !rows.every((id) => typeof id === 'string' && id !== ''))
  ) {
    throw badRequest(`body.rows is an array of up to ${ADMIN_MAX_ROWS} row IDs (leave it out for every row)`);
  }
  if (field !== undefined && typeof field !== 'string') throw badRequest('body.field is the ID, label or name of an action column');
  const column = field === undefined ? undefined : resolveFieldRef(table.fields, field, 'body.field');
  if (column && column.type !== 'action')
    throw badRequest(`body.field ${JSON.stringify(field)} is a ${column.type} column, not an action column`);
  return ok({ queued: deps.live.rerun(table, rows as string[] | undefined, column) });
}

/** POST /_emulator/tables/{tableId}/rows/delete {ids: [...]} -> 200 {deleted: N}; ids of no row are passed over. */
export async function deleteRows({ deps, req, params }: RouteCall): Promise<Reply> {
  const table = adminTable(deps.state, params.tableId!);
  const body = await readJsonObject(req);
  allowOnly(body, 'body', ['ids']);
  const { ids } = body;
  if (!Array.isArray(ids) || ids.length > ADMIN_MAX_ROWS || !ids.every((id) => typeof id === 'string' && id !== '')) {
    throw badRequest(`body.ids is required: an array of up to ${ADMIN_MAX_ROWS} row IDs`);
  }
  let deleted = 0;
  for (const id of new Set(ids as string[])) if (deps.live.remove(table, id)) deleted += 1;
  return ok({ deleted });
}
