import { badRequest } from '../http/errors.js';
import type { FieldInput } from './field-input.js';
import type { ActionSettings, FieldRec } from './model.js';
import { resolveFieldRef } from './field-ref.js';

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
