import { COLUMN_TYPES, type ColumnType, type FieldOption } from '../../service/index.js';
import { allowOnly, asObject, nonEmptyString } from '../admin/body.js';
import { badRequest } from '../http/errors.js';
import { DERIVE_RULES, type DeriveRule } from './model.js';

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
