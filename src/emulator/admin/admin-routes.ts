// emulator/admin/: the /_emulator/ routes that change the data (tables, columns, rows, action re-runs,
// the clock), listed in http/routes.ts; they answer only on a loopback bind or with --admin. What they
// take (a JSON object body, column definitions, cells) is checked in admin-input.ts.

import {
  allowOnly,
  nonEmptyString,
  readJsonObject,
  buildField,
  parseFieldInput,
  resolveAction,
  columnType,
  fieldOptions,
  asObject,
  parseCells,
  resolveFieldRef,
} from './admin-input.js';
import { badRequest, ApiProblem } from '../http/http-io.js';
import { freshId, type FieldRec, type TableRec, type WorkspaceRec, type StoredCell, type StoredRow } from '../store/model.js';
import { publicField, renderRow } from '../read/render-row.js';
import { RowList } from '../store/row-list.js';
import { WEBHOOK_PATH_PREFIX, ok, type Reply, type RouteCall } from '../http/route-table.js';
import type { EmulatorState, EmulatorClock } from '../store/state.js';
import { parseDateTime } from '../store/cell-values.js';

const EMOJI = /^:[a-z0-9_+-]+:$/;

/** POST /_emulator/tables {workspace, name, emoji?, webhook?, fields} -> 201 {table, fields, webhookUrl?} */
export async function createTable({ deps, req }: RouteCall): Promise<Reply> {
  const body = await readJsonObject(req);
  allowOnly(body, 'body', ['workspace', 'name', 'emoji', 'webhook', 'fields']);
  const workspace = findWorkspace(deps.state, nonEmptyString(body.workspace, 'body.workspace'));
  const name = nonEmptyString(body.name, 'body.name');
  if (body.emoji !== undefined && body.emoji !== null && (typeof body.emoji !== 'string' || !EMOJI.test(body.emoji))) {
    throw badRequest('body.emoji must be an emoji shortcode such as ":rocket:" (or null)');
  }
  if (body.webhook !== undefined && typeof body.webhook !== 'boolean') throw badRequest('body.webhook must be true or false');
  const webhook = body.webhook === true;
  if (!Array.isArray(body.fields)) throw badRequest('body.fields is required: an array of FieldDefinition {label, type, …}');
  const specs = body.fields.map((raw: unknown, i) => parseFieldInput(raw, `body.fields[${i}]`, webhook));

  const fields: FieldRec[] = webhook
    ? [{ id: freshId('fld_', 10), name: 'payload', label: 'Payload', type: 'webhook', options: null, isSystem: false }]
    : [];
  specs.forEach((spec, i) => fields.push(buildField(spec, freshId('fld_', 10), fields, `body.fields[${i}]`)));
  const offset = webhook ? 1 : 0;
  specs.forEach((spec, i) => {
    const field = fields[i + offset]!;
    if (spec.action) field.action = resolveAction(field, spec.action, fields, `body.fields[${i}].action`);
  });

  const table: TableRec = {
    id: freshId('tbl_', 14),
    orgId: workspace.orgId,
    workspaceId: workspace.id,
    name,
    emoji: typeof body.emoji === 'string' ? body.emoji : null,
    fields,
    rows: new RowList(),
    ...(webhook ? { webhookId: freshId('', 43) } : {}),
  };
  deps.state.tables.push(table);
  const reply: Record<string, unknown> = { table: deps.state.describeTable(table), fields: fields.map(publicField) };
  if (table.webhookId !== undefined) {
    deps.secrets.add(table.webhookId);
    reply.webhookUrl = deps.webhooks[table.id] = `${deps.origin()}${WEBHOOK_PATH_PREFIX}${table.webhookId}`;
  }
  return ok(reply, 201);
}

/** POST /_emulator/tables/{tableId}/webhooks -> 201 {webhookUrl}: another webhook of a webhook-fed table, with a budget of its own. */
export function addWebhook({ deps, params }: RouteCall): Reply {
  const table = adminTable(deps.state, params.tableId!);
  if (table.webhookId === undefined) throw badRequest(`table ${table.id} is not fed by a webhook`);
  const id = freshId('', 43);
  (table.moreWebhookIds ??= []).push(id);
  deps.secrets.add(id);
  return ok({ webhookUrl: `${deps.origin()}${WEBHOOK_PATH_PREFIX}${id}` }, 201);
}

/**
 * GET /_emulator/tables/{tableId}/webhooks -> 200 {rows, capacity, webhooks: [{webhookUrl, submissions, dropped, budget}]}:
 * what each webhook of the table has taken (--webhook-budget) and the table's rows (--table-capacity; null: no limit).
 */
export function readWebhooks({ deps, params }: RouteCall): Reply {
  const table = adminTable(deps.state, params.tableId!);
  const { webhookBudget, tableCapacity } = deps.limits.options;
  return ok({
    rows: table.rows.size,
    capacity: tableCapacity ?? null,
    webhooks: deps.state.webhooksOf(table).map((id) => ({
      webhookUrl: `${deps.origin()}${WEBHOOK_PATH_PREFIX}${id}`,
      ...deps.limits.count(id),
      budget: webhookBudget ?? null,
    })),
  });
}

/** A workspace by ID, else by name (of any organization; a name two organizations use is a 400). */
function findWorkspace(state: EmulatorState, ref: string): WorkspaceRec {
  const byId = state.workspaces.find((workspace) => workspace.id === ref);
  if (byId) return byId;
  const byName = state.workspaces.filter((workspace) => workspace.name === ref);
  if (byName.length > 1) throw badRequest(`body.workspace: "${ref}" names several workspaces: ${byName.map((w) => w.id).join(', ')}`);
  if (!byName[0]) throw badRequest(`body.workspace: no workspace "${ref}" (give a workspace ID or name)`);
  return byName[0];
}

/** POST /_emulator/tables/{tableId}/fields FieldDefinition -> 201 {field}, added last; existing rows keep it empty. */
export async function addField({ deps, req, params }: RouteCall): Promise<Reply> {
  const table = adminTable(deps.state, params.tableId!);
  const spec = parseFieldInput(await readJsonObject(req), 'body', table.webhookId !== undefined);
  const field = buildField(spec, freshId('fld_', 10), table.fields, 'body');
  const fields = [...table.fields, field];
  if (spec.action) field.action = resolveAction(field, spec.action, fields, 'body.action');
  table.fields.push(field);
  return ok({ field: publicField(field) }, 201);
}

/**
 * PATCH /_emulator/tables/{tableId}/fields/{fieldId} {label?, name?, type?, options?} -> 200 {field}. Stored
 * values stay as they are when the type changes, as the service keeps them.
 */
export async function updateField({ deps, req, params }: RouteCall): Promise<Reply> {
  const table = adminTable(deps.state, params.tableId!);
  const field = adminField(table, params.fieldId!);
  const body = await readJsonObject(req);
  allowOnly(body, 'body', ['label', 'name', 'type', 'options']);
  if (Object.keys(body).length === 0) throw badRequest('body changes nothing: give label, name, type or options');
  const label = body.label === undefined ? field.label : nonEmptyString(body.label, 'body.label');
  const name = body.name === undefined ? field.name : nonEmptyString(body.name, 'body.name');
  if (table.fields.some((other) => other !== field && other.name === name)) {
    throw badRequest(`body.name: "${name}" is the name of another column of this table`);
  }
  const type = body.type === undefined ? field.type : columnType(body.type, 'body.type');
  if ((type === 'webhook') !== (field.type === 'webhook')) throw badRequest('body.type: the webhook column stays the webhook column');
  if (field.isSystem && type !== field.type) throw badRequest(`body.type: column "${field.label}" is a system column`);
  const selectLike = type === 'select' || type === 'multi_select';
  const options = body.options !== undefined ? fieldOptions(body.options, type, 'body.options') : selectLike ? (field.options ?? []) : null;
  Object.assign(field, { label, name, type, options });
  if (type === 'action') field.runsAction = true;
  else delete field.runsAction;
  return ok({ field: publicField(field) });
}

/** DELETE /_emulator/tables/{tableId}/fields/{fieldId} -> 200 {deleted: 1}: the column and its cells are gone. */
export function deleteField({ deps, params }: RouteCall): Reply {
  const table = adminTable(deps.state, params.tableId!);
  const field = adminField(table, params.fieldId!);
  if (field.type === 'webhook') throw badRequest(`column "${field.label}" is the table's webhook column: it cannot be removed`);
  removeField(table, field);
  return ok({ deleted: 1 });
}

function removeField(table: TableRec, field: FieldRec): void {
  table.fields.splice(table.fields.indexOf(field), 1);
  for (const row of table.rows.held()) delete row.cells[field.id];
  for (const other of table.fields) {
    if (other.action?.from === field.id) delete other.action.from;
    if (other.action?.dependsOn === field.id) delete other.action.dependsOn;
  }
}

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

/** An offset beyond ±100 years would take dates out of what ISO 8601 strings of 4-digit years can say. */
const MAX_OFFSET_MS = 100 * 366 * 86_400_000;

/** GET /_emulator/clock -> 200 {now, offsetMs} */
export function readClock({ deps }: RouteCall): Reply {
  return ok(clockBody(deps.clock));
}

/** POST /_emulator/clock {advanceMs} or {offsetMs} -> 200 {now, offsetMs} */
export async function setClock({ deps, req }: RouteCall): Promise<Reply> {
  const body = await readJsonObject(req);
  allowOnly(body, 'body', ['advanceMs', 'offsetMs']);
  const given = Object.keys(body);
  if (given.length !== 1)
    throw badRequest('body must have exactly one of advanceMs (move the clock by N ms) and offsetMs (set the offset)');
  const ms = body[given[0]!];
  if (typeof ms !== 'number' || !Number.isInteger(ms)) throw badRequest(`body.${given[0]} must be a whole number of milliseconds`);
  const offset = given[0] === 'advanceMs' ? deps.clock.offsetMs + ms : ms;
  if (Math.abs(offset) > MAX_OFFSET_MS) throw badRequest(`the clock offset must stay within ±${MAX_OFFSET_MS} ms (100 years)`);
  deps.clock.setOffset(offset);
  return ok(clockBody(deps.clock));
}

function clockBody(clock: EmulatorClock): { now: string; offsetMs: number } {
  return { now: new Date(clock.now()).toISOString(), offsetMs: clock.offsetMs };
}

/** The table of an admin path (any organization: admin routes take no key), else a 404. */
export function adminTable(state: EmulatorState, tableId: string): TableRec {
  const table = state.tables.find((candidate) => candidate.id === tableId);
  if (!table) throw new ApiProblem(404, `Table ${tableId} not found`);
  return table;
}

/** The field of an admin path, by ID, else a 404. */
export function adminField(table: TableRec, fieldId: string): FieldRec {
  const field = table.fields.find((candidate) => candidate.id === fieldId);
  if (!field) throw new ApiProblem(404, `Field ${fieldId} not found in table ${table.id}`);
  return field;
}
