import type { StoredCell, StoredRow, TableRec } from '../store/model.js';

/** One posted object as a row: the webhook column keeps the whole object, mapped columns fill in. */
export function webhookRow(table: Pick<TableRec, 'fields'>, object: Record<string, unknown>, id: string, at: number): StoredRow {
  const cells: Record<string, StoredCell> = {};
  for (const field of table.fields) {
    if (field.type === 'webhook') cells[field.id] = { value: object };
    else if (field.mapKey !== undefined) {
      const value = readPath(object, field.mapKey);
      if (value !== undefined && value !== null && value !== '') cells[field.id] = { value };
    }
  }
  return { id, createdAt: at, updatedAt: at, createdByUserId: null, cells };
}

/** `address.city` reads object.address.city; a key that itself contains a dot is found too. */
function readPath(object: unknown, path: string): unknown {
  if (object === null || typeof object !== 'object') return undefined;
  const record = object as Record<string, unknown>;
  // own keys only: a key such as `constructor` or `__proto__` reads nothing the object was not sent with
  if (Object.hasOwn(record, path)) return record[path];
  const dot = path.indexOf('.');
  if (dot < 0 || !Object.hasOwn(record, path.slice(0, dot))) return undefined;
  return readPath(record[path.slice(0, dot)], path.slice(dot + 1));
}
