import { fakeValue } from '../seed/fake-value.js';
import { GeneratedOverlay } from '../store/generated-overlay.js';
import type { StoredCell, StoredRow, TableRec } from '../store/model.js';
import type { Prng } from '../seed/prng.js';
import { webhookRow } from '../webhook/row.js';

/**
 * A new row for churn to add: on a computed table, cells computed from a fresh index (one small object, so
 * memory stays flat); on a webhook-fed table, a posted object of its mapped keys; elsewhere a value per column.
 */
export function churnRow(table: TableRec, random: Prng, id: string, at: number): StoredRow {
  const { rows } = table;
  if (rows instanceof GeneratedOverlay) {
    const index = rows.base.size + rows.added.size + 1;
    return { id, createdAt: at, updatedAt: at, createdByUserId: null, cells: rows.base.cellsAt(index) };
  }
  if (table.webhookId !== undefined) {
    const posted: Record<string, unknown> = {};
    for (const field of table.fields) {
      if (field.mapKey === undefined) continue;
      const value = fakeValue(field, random, at);
      if (value !== undefined) setPath(posted, field.mapKey, value);
    }
    return webhookRow(table, posted, id, at);
  }
  const cells: Record<string, StoredCell> = {};
  for (const field of table.fields) {
    const value = fakeValue(field, random, at);
    if (value !== undefined) cells[field.id] = { value };
  }
  return { id, createdAt: at, updatedAt: at, createdByUserId: null, cells };
}

/** `a.b` sets object.a.b (own properties, even `__proto__`). */
function setPath(object: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  let target = object;
  for (const key of keys.slice(0, -1)) {
    const next = Object.hasOwn(target, key) ? target[key] : undefined;
    const child = next !== null && typeof next === 'object' ? (next as Record<string, unknown>) : {};
    setOwn(target, key, child);
    target = child;
  }
  setOwn(target, keys[keys.length - 1]!, value);
}

function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
