import type { Cell, Field, Row } from '../service/index.js';
import type { RecordPlan } from './record-plan.js';
import type { CellsMode } from './shape-options.js';
import type { TruncationTally } from './truncation-tally.js';

/** A row → its record, counting cells the service cut (`isTruncated`) in `tally`. */
export type RowShaper = (row: Row, tally: TruncationTally) => OutputRecord;

export function createRowShaper(plan: RecordPlan, cells: CellsMode): RowShaper {
  const columns = plan.columns.map((column) => ({
    ...column,
    id: column.field.id,
    labels: cells === 'value' ? optionLabels(column.field) : undefined,
  }));
  return (row, tally) => {
    // no prototype: a key such as `__proto__` or `constructor` is a key like any other
    const record = Object.create(null) as OutputRecord;
    if (plan.meta) {
      record._id = row.id;
      record._createdAt = row.createdAt;
      record._updatedAt = row.updatedAt;
      record._createdByUserId = row.createdByUserId ?? null;
    }
    for (const column of columns) {
      const cell = row.cells[column.id];
      if (cell?.isTruncated === true) tally.note('service', column.key);
      record[column.key] = cells === 'raw' ? (cell ?? null) : cellValue(cell, column.labels);
      if (column.statusKey !== undefined && column.errorKey !== undefined) {
        record[column.statusKey] = cell?.status ?? null;
        record[column.errorKey] = cell?.errorMessage ?? null;
      }
    }
    return record;
  };
}

/** One row as a record: keys in the plan's order (docs/cli.md "Row records"), values as they are written.
 * Made without a prototype (Object.create(null)), so that no key reaches one: `__proto__` is a key like any other. */
export type OutputRecord = Record<string, unknown>;

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
