import type { StoredRow } from './model.js';

/**
 * Marks a change of the row: updatedAt becomes the clock's time, and always moves forward (by 1 ms at least,
 * when the clock stands still or two changes fall in the same millisecond), so every change is visible in it.
 */
export function touchRow(row: StoredRow, now: number): void {
  row.updatedAt = Math.max(now, row.updatedAt + 1);
}
