import type { Row } from '../service/index.js';
import { cellValue, optionLabels } from './cell-value.js';
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
