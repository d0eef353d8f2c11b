import { TdsError } from '../core/errors.js';
import { pickTable } from '../http/resolve-table.js';
import type { Table } from '../service/index.js';
import { findMirrorTable, readCatalog } from './mirror-catalog.js';
import type { Session } from './session.js';

/**
 * The service's table a reference names: its ID or exact name (as on the command line), or else the
 * name of its mirror table (`leads`), which an agent reads in query_sql and list_tables.
 */
export async function serviceTable(session: Session, tables: Table[], ref: string): Promise<Table> {
  try {
    return pickTable(tables, ref);
  } catch (error) {
    if (!(error instanceof TdsError) || error.code !== 'NOT_FOUND') throw error;
    const catalog = await readCatalog(session).catch(() => undefined);
    const mirrored = catalog && findMirrorTable(catalog.tables, ref);
    if (!mirrored) throw error;
    return pickTable(tables, mirrored.state.tableId);
  }
}
