import { badRequest } from '../http/errors.js';
import type { FieldRec } from './model.js';

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
