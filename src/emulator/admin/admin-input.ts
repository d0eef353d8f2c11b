// What the admin routes take: a JSON object body and its members, column definitions (FieldDefinition), action
// settings and cells; any problem is a 400 that names where it is.

import type { IncomingMessage } from 'node:http';
import { badRequest, readBody } from '../http/http-io.js';
import { CELL_STATUSES, COLUMN_TYPES, type CellStatus, type ColumnType, type FieldOption } from '../../service/index.js';
import type { CellChanges } from '../store/live-rows.js';
import { DERIVE_RULES, type ActionSettings, type DeriveRule, type FieldRec, type StoredCell } from '../store/model.js';

/** Admin bodies can carry many rows; beyond this they are refused. */
export const ADMIN_BODY_MAX_BYTES = 32_000_000;

/** The JSON object of an admin request's body; anything else is a 400. */
export async function readJsonObject(req: IncomingMessage): Promise<Record<string, unknown>> {
  const read = await readBody(req, ADMIN_BODY_MAX_BYTES);
  if ('tooLarge' in read) throw badRequest(`body is over ${ADMIN_BODY_MAX_BYTES} bytes`);
  if (read.body.length === 0) throw badRequest('body is required: a JSON object');
  let body: unknown;
  try {
    body = JSON.parse(read.body.toString('utf8'));
  } catch {
    throw badRequest('body is not valid JSON');
  }
  return asObject(body, 'body');
}

/** A plain JSON object, else a 400 naming where it was expected. */
export function asObject(value: unknown, where: string): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw badRequest(`${where} must be a JSON object`);
  return value as Record<string, unknown>;
}

/** Only these members, else a 400 naming the others. */
export function allowOnly(record: Record<string, unknown>, where: string, allowed: readonly string[]): void {
  const unknown = Object.keys(record).filter((key) => !allowed.includes(key));
  if (unknown.length > 0) {
    throw badRequest(
      `${where} has unknown member${unknown.length > 1 ? 's' : ''} ${unknown.map((key) => `"${key}"`).join(', ')}; allowed: ${allowed.join(', ')}`,
    );
  }
}

/** A non-empty string, else a 400. */
export function nonEmptyString(value: unknown, where: string): string {
  if (typeof value !== 'string' || value.trim() === '') throw badRequest(`${where} must be a non-empty string`);
  return value;
}

/** A column as the admin routes take it; action refs are field IDs, labels or names, resolved later. */
export interface FieldInput {
  label: string;
  type: ColumnType;
  name?: string;
  options?: FieldOption[];
  mapKey?: string;
  action?: { from?: string; dependsOn?: string; derive?: DeriveRule };
}

const MEMBERS = ['label', 'type', 'name', 'options', 'mapKey', 'action'];

/** Checks the shape of a FieldDefinition (admin routes); any problem is a 400 that names it. */
export function parseFieldInput(raw: unknown, where: string, webhookTable: boolean): FieldInput {
  const record = asObject(raw, where);
  allowOnly(record, where, MEMBERS);
  const type = columnType(record.type, `${where}.type`);
  if (type === 'webhook') {
    throw badRequest(`${where}.type: a webhook column comes only with a table created with "webhook": true (a table cannot get one later)`);
  }
  const spec: FieldInput = { label: nonEmptyString(record.label, `${where}.label`), type };
  if (record.name !== undefined) spec.name = nonEmptyString(record.name, `${where}.name`);
  if (record.options !== undefined) spec.options = fieldOptions(record.options, type, `${where}.options`);
  if (record.mapKey !== undefined) {
    if (!webhookTable) throw badRequest(`${where}.mapKey: only columns of a webhook-fed table are filled from posted keys`);
    spec.mapKey = nonEmptyString(record.mapKey, `${where}.mapKey`);
  }
  if (record.action !== undefined) spec.action = actionSpec(record.action, type, `${where}.action`);
  return spec;
}

export function columnType(value: unknown, where: string): ColumnType {
  if (typeof value !== 'string' || !(COLUMN_TYPES as readonly string[]).includes(value)) {
    throw badRequest(`${where} must be one of: ${COLUMN_TYPES.join(', ')}${typeof value === 'string' ? ` (got "${value}")` : ''}`);
  }
  return value as ColumnType;
}

/** Options `[{label, value}]`, only for select and multi_select columns, values unique. */
export function fieldOptions(value: unknown, type: ColumnType, where: string): FieldOption[] {
  if (type !== 'select' && type !== 'multi_select') throw badRequest(`${where}: only select and multi_select columns have options`);
  if (!Array.isArray(value)) throw badRequest(`${where} must be an array of {label, value}`);
  const options = value.map((item: unknown, i) => {
    const option = asObject(item, `${where}[${i}]`);
    allowOnly(option, `${where}[${i}]`, ['label', 'value']);
    return { label: nonEmptyString(option.label, `${where}[${i}].label`), value: nonEmptyString(option.value, `${where}[${i}].value`) };
  });
  const values = options.map((option) => option.value);
  const repeated = values.find((item, i) => values.indexOf(item) !== i);
  if (repeated !== undefined) throw badRequest(`${where}: value "${repeated}" is given twice`);
  return options;
}

function actionSpec(value: unknown, type: ColumnType, where: string): NonNullable<FieldInput['action']> {
  if (type !== 'action') throw badRequest(`${where}: only action columns run an action`);
  const record = asObject(value, where);
  allowOnly(record, where, ['from', 'dependsOn', 'derive']);
  const action: NonNullable<FieldInput['action']> = {};
  if (record.from !== undefined) action.from = nonEmptyString(record.from, `${where}.from`);
  if (record.dependsOn !== undefined) action.dependsOn = nonEmptyString(record.dependsOn, `${where}.dependsOn`);
  if (record.derive !== undefined) {
    if (typeof record.derive !== 'string' || !(DERIVE_RULES as readonly string[]).includes(record.derive)) {
      throw badRequest(`${where}.derive must be one of: ${DERIVE_RULES.join(', ')}`);
    }
    action.derive = record.derive as DeriveRule;
  }
  return action;
}

/** A column named by its ID, else its label (which must then be unique), else its internal name; else a 400. */
export function resolveFieldRef(fields: readonly FieldRec[], ref: string, where: string): FieldRec {
  const byId = fields.find((field) => field.id === ref);
  if (byId) return byId;
  const byLabel = fields.filter((field) => field.label === ref);
  if (byLabel.length > 1) {
    throw badRequest(`${where}: label "${ref}" is shared by columns ${byLabel.map((field) => field.id).join(', ')}: give the ID or name`);
  }
  const found = byLabel[0] ?? fields.find((field) => field.name === ref);
  if (!found) throw badRequest(`${where}: no column "${ref}" in this table (give a field ID, label or name)`);
  return found;
}

/** A new column from a checked FieldDefinition; its internal name defaults to the label in snake case, made unique. */
export function buildField(spec: FieldInput, id: string, taken: readonly FieldRec[], where: string): FieldRec {
  const names = new Set(taken.map((field) => field.name));
  let name = spec.name;
  if (name !== undefined && names.has(name)) throw badRequest(`${where}.name: "${name}" is the name of another column of this table`);
  if (name === undefined) {
    const base = snakeCase(spec.label) || 'field';
    name = base;
    for (let n = 2; names.has(name); n += 1) name = `${base}_${n}`;
  }
  return {
    id,
    name,
    label: spec.label,
    type: spec.type,
    options: spec.options ?? (spec.type === 'select' || spec.type === 'multi_select' ? [] : null),
    isSystem: false,
    ...(spec.mapKey !== undefined ? { mapKey: spec.mapKey } : {}),
    ...(spec.type === 'action' ? { runsAction: true } : {}),
  };
}

/**
 * The action settings of a new column, its refs resolved among the table's columns: `from` any column but
 * itself, `dependsOn` another action column, with no cycle of dependencies.
 */
export function resolveAction(field: FieldRec, input: FieldInput['action'], fields: readonly FieldRec[], where: string): ActionSettings {
  const action: ActionSettings = {};
  if (input?.from !== undefined) {
    const from = resolveFieldRef(fields, input.from, `${where}.from`);
    if (from.id === field.id) throw badRequest(`${where}.from: a column cannot be its own input`);
    action.from = from.id;
  }
  if (input?.dependsOn !== undefined) {
    const on = resolveFieldRef(fields, input.dependsOn, `${where}.dependsOn`);
    if (on.type !== 'action') throw badRequest(`${where}.dependsOn: column "${on.label}" is not an action column`);
    let at: FieldRec | undefined = on;
    for (let steps = 0; at && steps <= fields.length; steps += 1) {
      if (at.id === field.id) throw badRequest(`${where}.dependsOn: "${on.label}" depends on this column (a cycle)`);
      const next: string | undefined = at.action?.dependsOn;
      at = fields.find((candidate) => candidate.id === next);
    }
    action.dependsOn = on.id;
  }
  if (input?.derive !== undefined) action.derive = input.derive;
  return action;
}

export function snakeCase(label: string): string {
  return label
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
}

const CELL_MEMBERS = ['value', 'status', 'errorMessage'];

/**
 * The `cells` of an admin request: keys are field IDs, labels or names; a value is either the cell's value,
 * or a cell `{value?, status?, errorMessage?}` (an object with only those members, at least one); null clears
 * the cell. A status is one of the service's and only on a column that runs an action.
 */
export function parseCells(raw: unknown, fields: readonly FieldRec[], where: string): CellChanges {
  const record = asObject(raw, where);
  const changes: CellChanges = {};
  for (const [ref, value] of Object.entries(record)) {
    const field = resolveFieldRef(fields, ref, `${where}["${ref}"]`);
    if (field.id in changes) throw badRequest(`${where}: column ${field.id} is given twice ("${ref}")`);
    changes[field.id] = value === null ? null : cellOf(value, field, `${where}["${ref}"]`);
  }
  return changes;
}

function cellOf(value: unknown, field: FieldRec, where: string): StoredCell {
  if (!isCellForm(value)) return { value };
  const cell: StoredCell = {};
  if (value.value !== undefined) cell.value = value.value;
  if (value.errorMessage !== undefined) cell.errorMessage = value.errorMessage;
  if (value.status !== undefined && value.status !== null) {
    if (typeof value.status !== 'string' || !(CELL_STATUSES as readonly string[]).includes(value.status)) {
      throw badRequest(`${where}.status must be one of: ${CELL_STATUSES.join(', ')} (or null)`);
    }
    if (field.type !== 'action' && !field.runsAction) {
      throw badRequest(`${where}.status: only cells of action columns have a status ("${field.label}" is ${field.type})`);
    }
    cell.status = value.status as CellStatus;
  }
  return cell;
}

function isCellForm(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  return keys.length > 0 && keys.every((key) => CELL_MEMBERS.includes(key));
}
