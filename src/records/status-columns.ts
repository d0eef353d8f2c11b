import type { Field } from '../service/index.js';
import { carriesStatus } from './column-keys.js';

/**
 * The columns that get `<key>.status` and `<key>.error` under --status-columns: those whose cells
 * carry a run status (the action columns), from the schema alone, so that an export, Parquet and
 * the mirror agree on them and the CSV header is known before the first row.
 */
export function statusFieldIds(fields: readonly Field[]): Set<string> {
  return new Set(fields.filter(carriesStatus).map((field) => field.id));
}
