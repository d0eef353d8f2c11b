import type { Field } from '../service/index.js';
import { META_KEYS, type HeaderMode } from './shape-options.js';
import { uniqueKey } from './unique-key.js';

export interface KeyedField {
  field: Field;
  /** The column's record key: its label (or name, or ID), made unique with ` (2)`, ` (3)`, … */
  key: string;
}

/**
 * Every column with its key, in schema order. A column keeps its label unless an earlier column
 * has it or it equals a meta key; those later ones get ` (2)`, ` (3)`, … in schema order, skipping
 * any key another column already has (a column labelled `Value (2)` keeps that key). Keys are made
 * unique over the whole schema with the meta keys always reserved, so a column's key is the same
 * whatever --no-meta, --no-system or --columns leave out (a column labelled `_id` is always `_id (2)`).
 * `reserved` keys are taken too (the mirror's `_truncated` and the columns of removed fields).
 */
export function keyFields(fields: readonly Field[], header: HeaderMode, reserved: Iterable<string> = []): KeyedField[] {
  const taken = new Set<string>([...META_KEYS, ...reserved]);
  const plain = fields.map((field) => {
    const base = field[header];
    if (taken.has(base)) return undefined;
    taken.add(base);
    return base;
  });
  return fields.map((field, i) => ({ field, key: plain[i] ?? uniqueKey(field[header], taken) }));
}
