import { adminField, adminTable } from './lookup.js';
import { allowOnly, nonEmptyString, readJsonObject } from './body.js';
import { buildField, columnType, fieldOptions, parseFieldInput, resolveAction } from '../store/field-input.js';
import { badRequest } from '../http/http-io.js';
import { freshId } from '../store/ids.js';
import type { FieldRec, TableRec } from '../store/model.js';
import { publicField } from '../read/render-row.js';
import { ok, type Reply, type RouteCall } from '../http/server-deps.js';

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
