import type { Field, Table } from '../service/index.js';
import type { TableState } from './table-state.js';

/**
 * How often --follow reads a table's schema even when its rows show no new field (a relabel or removal
 * shows in no row), and the list of tables (their row counts, which an incremental pass must reach).
 */
const SCHEMA_REFRESH_MS = 5 * 60_000;

/** What --follow keeps between rounds, so that an idle round costs one listing and no row request. */
export class FollowMemory {
  tables: Table[] = [];
  private readonly schemas = new Map<string, { fields: Field[]; at: number }>();

  /** Names in use in the mirror (a new mirror table takes none of them). */
  taken = new Set<string>();
  /** What each table's last sync left: the service's row count then, and whether action cells were pending. */
  private readonly after = new Map<string, { serviceRowCount: number | null; settled: boolean }>();

  /** Whether a round must read the table: its count moved, an action cell is pending, or a pass is unfinished. */
  mayHaveChanged(table: Table): boolean {
    const after = this.after.get(table.id);
    return after === undefined || !after.settled || after.serviceRowCount !== table.rowCount;
  }

  /** The tables' states after a round. */
  synced(states: readonly TableState[]): void {
    for (const state of states) {
      this.after.set(state.tableId, {
        serviceRowCount: state.serviceRowCount,
        settled: state.pendingSince === null && state.pass === null,
      });
    }
  }

  listed(tables: readonly Table[]): void {
    const latest = new Map(tables.map((table) => [table.id, table]));
    // a table gone from the list stays (its sync then says what became of it)
    this.tables = this.tables.map((table) => latest.get(table.id) ?? table);
  }

  fieldsOf(tableId: string): Field[] | undefined {
    const known = this.schemas.get(tableId);
    return known && Date.now() - known.at < SCHEMA_REFRESH_MS ? known.fields : undefined;
  }

  remember(tableId: string, fields: Field[]): void {
    if (this.schemas.get(tableId)?.fields !== fields) this.schemas.set(tableId, { fields, at: Date.now() });
  }
}
