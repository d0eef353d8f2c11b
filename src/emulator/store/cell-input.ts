import { CELL_STATUSES, type CellStatus } from '../../service/index.js';
import { asObject } from '../admin/body.js';
import { badRequest } from '../http/errors.js';
import { resolveFieldRef } from './field-ref.js';
import type { CellChanges } from './live-rows.js';
import type { FieldRec, StoredCell } from './model.js';

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
