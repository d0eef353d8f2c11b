import type { DuckDBConnection } from '@duckdb/node-api';
import { TdsError, UsageError, didYouMean } from '../core/index.js';
import { loadFields, type StoredField, loadStates, namedStates, type TableState } from '../mirror/index.js';
import { selectColumns } from '../records/index.js';

// A table of the mirror and its fields, as the mirror's own catalog (_tds_tables, _tds_columns)
// describes them: columns it does not list (a newer mirror's own, like _syncId) are not fields.

/** The table named by `ref`: its service ID, or its name or mirror table's name (exact, else ignoring case). */
export async function findMirrorTable(connection: DuckDBConnection, ref: string, db: string): Promise<TableState> {
  const states = await loadStates(connection);
  const named = namedStates(
    states.map((state) => ({ state })),
    ref,
  );
  if (named.length > 1) {
    const candidates = named.map(({ state }) => `${state.tableId} (${state.workspaceName})`).join(', ');
    throw new UsageError(`the mirror holds ${named.length} tables named "${ref}": ${candidates}`, { hint: 'name the table by its ID' });
  }
  if (named[0]) return named[0].state;
  throw notInMirror(ref, db, states);
}

export function notInMirror(ref: string, db: string, states: readonly TableState[] = []): TdsError {
  const near = didYouMean(
    ref,
    states.flatMap((state) => [state.name, state.mirrorTable]),
  );
  return new TdsError('NOT_FOUND', `the table "${ref}" is not in the mirror ${db}`, {
    hint: `${near ? `${near} ` : ''}sync it first (\`tds sync ${ref.includes(' ') ? JSON.stringify(ref) : ref}\`), or leave out --no-sync and \`tds stats\` syncs it`,
  });
}

/** The table's fields in schema order (removed ones are no longer fields). */
export async function mirrorFields(connection: DuckDBConnection, tableId: string): Promise<StoredField[]> {
  return (await loadFields(connection, tableId)).filter((field) => !field.removed);
}

/** `--columns`: the fields named, in that order (by key, field ID, label or name, as exports take them). */
export function pickFields(fields: readonly StoredField[], columns?: readonly string[]): StoredField[] {
  if (!columns || columns.length === 0) return [...fields];
  const keyed = fields.map((stored) => ({
    key: stored.key,
    field: {
      id: stored.fieldId,
      name: stored.name,
      label: stored.label,
      type: stored.type,
      options: stored.options,
      isSystem: stored.isSystem,
    },
  }));
  return selectColumns(columns, keyed).map((picked) => fields[keyed.indexOf(picked)]!);
}

/** The table's folder in the lake that `tds sync --lake` writes (the newest one), or null: no lake. */
export async function lakeFolderOf(connection: DuckDBConnection, tableId: string): Promise<string | null> {
  const exists = await connection.runAndReadAll(
    "SELECT 1 FROM duckdb_tables() WHERE table_name = '_tds_lake' AND schema_name = 'main' AND database_name = current_database()",
  );
  if (exists.getRowObjectsJS().length === 0) return null;
  const reader = await connection.runAndReadAll('SELECT folder FROM _tds_lake WHERE table_id = $1 ORDER BY written_at DESC LIMIT 1', [
    tableId,
  ]);
  const row = reader.getRowObjectsJS()[0];
  return row ? String(row.folder) : null;
}
