import type { StoredCell } from './model.js';

/** An editable copy of a row's cells: computed cells (getters on a prototype) become plain members. */
export function plainCells(cells: Record<string, StoredCell>): Record<string, StoredCell> {
  const copy: Record<string, StoredCell> = {};
  // for…in on purpose: it lists the computed cells, which are inherited getters.
  for (const id in cells) {
    const cell = cells[id];
    if (cell !== undefined) copy[id] = cell;
  }
  return copy;
}

/** Whether the cells are a plain object (safe to edit in place). */
export function hasPlainCells(cells: Record<string, StoredCell>): boolean {
  return Object.getPrototypeOf(cells) === Object.prototype;
}
