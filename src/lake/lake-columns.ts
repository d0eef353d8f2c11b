import type { DuckDBConnection } from '@duckdb/node-api';
import { renameListItems } from '../duckdb/index.js';
import type { VersionColumn } from '../mirror/history/index.js';
import { TRUNCATED_KEY } from '../records/index.js';

// A field keeps one column name in the lake for its life: the name its column had when it first reached
// the lake. The mirror renames a column when its field is relabelled; the lake cannot rename the columns
// of files already written (nor should a partition written late differ from one written at once), so
// every partition, whenever written, names the field's column the same, and a reader's union by name
// keeps one column. The names are kept per field ID in the table folder's `_table.json`, so the folder
// alone says them (`tds lake compact`, the README). A new field whose name another field holds in the
// lake (one relabelled away from it, or removed) gets a distinct one, `Name (FIELD_ID)`.

/**
 * A column of a field in the lake, by its slot: the field's ID for its value column, `ID/status` and
 * `ID/error` for an action field's other two.
 */
export interface LakeColumn {
  /** The column's name in the lake's files, for the field's life. */
  lake: string;
  /** Its key in the mirror when last written (the field's current label, or name); absent once the mirror has no such column. */
  mirror?: string;
}

export type LakeColumns = Record<string, LakeColumn>;

/** A mirror column of a field, by slot. */
interface MirrorSlot {
  slot: string;
  fieldId: string;
  key: string;
}

/** The mirror's field columns of a table (removed fields' kept columns too), by slot. */
async function mirrorSlots(connection: DuckDBConnection, tableId: string): Promise<MirrorSlot[]> {
  const reader = await connection.runAndReadAll(
    'SELECT field_id, key, status_key, error_key FROM _tds_columns WHERE table_id = $1 ORDER BY removed, position',
    [tableId],
  );
  return reader.getRowObjectsJS().flatMap((row) => {
    const fieldId = String(row.field_id);
    const slots: MirrorSlot[] = [{ slot: fieldId, fieldId, key: String(row.key) }];
    if (row.status_key !== null) slots.push({ slot: `${fieldId}/status`, fieldId, key: String(row.status_key) });
    if (row.error_key !== null) slots.push({ slot: `${fieldId}/error`, fieldId, key: String(row.error_key) });
    return slots;
  });
}

/**
 * The lake's names of the table's field columns: those `known` (from `_table.json`) kept, each new one
 * named by its mirror key unless another column holds that name in the lake (DuckDB's names ignore
 * case), then `key (FIELD_ID)`. Without `known` (a folder written before the names were kept), every
 * field starts with its mirror key: the name its newest file gave it (files were named by the mirror's
 * keys, and unique ones), unless it was relabelled since that file, which no file tells.
 */
export async function lakeColumns(connection: DuckDBConnection, tableId: string, known: LakeColumns | undefined): Promise<LakeColumns> {
  const slots = await mirrorSlots(connection, tableId);
  const columns: LakeColumns = {};
  const taken = new Set<string>();
  const inMirror = new Set(slots.map(({ slot }) => slot));
  for (const [slot, column] of Object.entries(known ?? {})) {
    columns[slot] = inMirror.has(slot) ? { ...column } : { lake: column.lake };
    taken.add(column.lake.toLowerCase());
  }
  for (const { slot, fieldId, key } of slots) {
    const column = columns[slot];
    if (column) {
      column.mirror = key;
      continue;
    }
    let lake = taken.has(key.toLowerCase()) ? `${key} (${fieldId})` : key;
    for (let n = 2; taken.has(lake.toLowerCase()); n += 1) lake = `${key} (${fieldId} ${n})`;
    taken.add(lake.toLowerCase());
    columns[slot] = { lake, mirror: key };
  }
  return columns;
}

/**
 * The mirror's columns as the lake has them: each by its lake name (a column of no field, `_id` and
 * such, keeps its own), and the keys `_truncated` names likewise, so that a lake's row names its cut
 * values by its own columns, whenever written (seed 5017 of the simulator).
 */
export function inLakeNames(versions: readonly VersionColumn[], columns: LakeColumns): VersionColumn[] {
  const renames = relabelledColumns(columns).map((column) => [column.mirror, column.lake] as const);
  const byKey = new Map(renames);
  return versions.map((column) =>
    column.key === TRUNCATED_KEY && renames.length > 0
      ? { ...column, sql: renameListItems(column.sql, renames) }
      : { ...column, key: byKey.get(column.key) ?? column.key },
  );
}

/** The columns whose lake name is not their mirror key, for the README. */
export function relabelledColumns(columns: LakeColumns | undefined): Array<Required<LakeColumn>> {
  return Object.values(columns ?? {}).filter(
    (column): column is Required<LakeColumn> => column.mirror !== undefined && column.lake !== column.mirror,
  );
}
