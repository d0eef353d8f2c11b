import type { ActionRunner } from '../actions/action-runner.js';
import { touchRow, type FieldRec, type StoredCell, type StoredRow, type TableRec } from './model.js';

/** Cell changes by field id; null clears the cell. */
export type CellChanges = Record<string, StoredCell | null>;

/** Every change of rows goes through here (webhook intake, churn, admin routes), so action columns follow. */
export class LiveRows {
  constructor(
    private readonly runner: ActionRunner,
    private readonly now: () => number,
  ) {}

  /** Rows become visible: stored, and their action columns start (except cells `given` says were sent in). */
  arrive(table: TableRec, rows: readonly StoredRow[], given?: (row: StoredRow, fieldId: string) => boolean): void {
    if (rows.length === 0) return;
    table.rows.add(rows);
    this.runner.start(table, rows, given);
  }

  /** Changes cells of a row (a cell written by hand stops its action run) and moves its updatedAt. */
  update(table: TableRec, rowId: string, changes: CellChanges): StoredRow | undefined {
    const row = table.rows.edit(rowId);
    if (!row) return undefined;
    for (const [fieldId, cell] of Object.entries(changes)) {
      if (cell === null) delete row.cells[fieldId];
      else row.cells[fieldId] = cell;
    }
    for (const fieldId of Object.keys(changes)) this.runner.cancel(row, fieldId);
    touchRow(row, this.now());
    return row;
  }

  /** Every action cell that is not final settles now, and cells that start later settle at once (POST /_emulator/actions/finish). */
  finishActions(): void {
    this.runner.finishAll();
  }

  /** The action cells of these rows (every row when none is named) run again (POST /_emulator/tables/{id}/actions/rerun). */
  rerun(table: TableRec, rowIds: readonly string[] | undefined, only?: FieldRec): number {
    const rows =
      rowIds === undefined ? [...table.rows.newest()] : rowIds.map((id) => table.rows.edit(id)).filter((row) => row !== undefined);
    return this.runner.rerun(table, rows, only);
  }

  remove(table: TableRec, rowId: string): boolean {
    const row = table.rows.remove(rowId);
    if (row) this.runner.forgetRow(row);
    return row !== undefined;
  }
}
