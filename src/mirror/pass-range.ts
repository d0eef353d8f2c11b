import { quoteLiteral } from '../duckdb/sql-text.js';
import type { PassState } from './table-state.js';

/**
 * The mirror rows a complete pass should have seen and did not (SQL condition on the mirror table): a
 * full pass, every row it did not see; an incremental one, those newer than the oldest row it read. No
 * other sync writes the mirror meanwhile (DuckDB locks it), so such a row is gone from the service.
 */
export function unseenRows(tableId: string, pass: Pick<PassState, 'mode' | 'oldest'>): string {
  const inRange =
    pass.mode === 'full' ? 'true' : pass.oldest === null ? 'false' : `"_createdAt" > ${quoteLiteral(pass.oldest)}::TIMESTAMPTZ`;
  return `${inRange} AND "_id" NOT IN (SELECT row_id FROM _tds_pass WHERE table_id = ${quoteLiteral(tableId)})`;
}
