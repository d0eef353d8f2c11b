import type { Cell, Field } from '../service/index.js';

/** Option value → label, for select and multi_select columns that have options. */
export type OptionLabels = ReadonlyMap<string, string>;

export function optionLabels(field: Field): OptionLabels | undefined {
  if ((field.type !== 'select' && field.type !== 'multi_select') || !field.options?.length) return undefined;
  return new Map(field.options.map((option) => [option.value, option.label]));
}

/**
 * A cell as a record value: null when empty; the cut text of a truncated cell (`value`, else
 * `valuePreview`); a select value that equals an option's value shown as its label (each item of
 * a multi_select). Everything else keeps its JSON type.
 */
export function cellValue(cell: Cell | undefined, labels?: OptionLabels): unknown {
  if (cell === undefined) return null;
  const value = cell.value ?? cell.valuePreview ?? null;
  if (labels === undefined || value === null) return value;
  if (typeof value === 'string') return labels.get(value) ?? value;
  if (Array.isArray(value)) return value.map((item: unknown) => (typeof item === 'string' ? (labels.get(item) ?? item) : item));
  return value;
}
