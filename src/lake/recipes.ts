// The README that tds writes into each table's folder of the lake: what the files are, and the SQL for
// the table as it is now and as it was, in DuckDB, Spark SQL and Trino. It is written again whenever the
// folder changes (a new partition, a compaction), so the SQL always fits what is there.

import { quoteLiteral } from '../duckdb/index.js';
import { runGlobs, runReplace, snapshotReplace, type RetypedFiles } from './retyped-files.js';

export interface ReadmeTable {
  /** The service table's name. */
  name: string;
  /** Its folder in the lake. */
  folder: string;
  /** The mirror's columns with their DuckDB types, in order. */
  columns: ReadonlyArray<{ key: string; type: string }>;
  /** The sync of the newest whole snapshot (`snapshot/as_of=<S>`), if any. */
  snapshotAsOf?: number;
  /** Whether partitions newer than the snapshot (or any, without one) are in `changes/`. */
  hasChanges: boolean;
  /** Columns whose older files hold another type: read back and converted as the mirror converted them. */
  retyped?: RetypedFiles;
  /** Columns named by a field's earlier label (a field keeps its first name in the lake), with the mirror's key now. */
  relabelled?: ReadonlyArray<{ lake: string; mirror: string }>;
}

/** Change partitions read together by name (FROM-able). */
const partitionsRead = (folder: string, globs: readonly string[]): string => {
  const files = globs.map((glob) => quoteLiteral(`${folder}/changes/sync_id=${glob}/*.parquet`));
  return `read_parquet(${files.length === 1 ? files[0] : `[${files.join(', ')}]`}, hive_partitioning = true, union_by_name = true)`;
};

/**
 * The change partitions read together by name (FROM-able); when a field was retyped, each run of
 * partitions of one type read by itself, its older values converted as the mirror does.
 */
export function changesRead(folder: string, retyped?: RetypedFiles): string {
  if (!retyped || retyped.runs.length === 0) return partitionsRead(folder, ['*']);
  const runs = retyped.runs.map(
    (run) => `SELECT *${runReplace(run, retyped.columns)} FROM ${partitionsRead(folder, runGlobs(run.syncIds))}`,
  );
  return `(${runs.join('\n  UNION ALL BY NAME\n  ')})`;
}

/** A snapshot partition (FROM-able), retyped columns converted as the mirror does. */
export function snapshotRead(folder: string, asOf: number, retyped?: RetypedFiles): string {
  const read = `read_parquet(${quoteLiteral(`${folder}/snapshot/as_of=${asOf}/*.parquet`)}, union_by_name = true)`;
  const replace = snapshotReplace(retyped?.columns ?? []);
  return replace === '' ? read : `(SELECT *${replace} FROM ${read})`;
}

/** The newest version of each row among `source` (a relation), tombstones kept so that they hide the row. */
const latest = (source: string, order: string): string =>
  `SELECT * FROM (SELECT *, row_number() OVER (PARTITION BY _id ORDER BY ${order}) AS _n FROM ${source}) WHERE _n = 1`;

/** DuckDB: the rows as of sync N (`bound` = `sync_id <= N`), or now (no bound). */
function duckdbAt(table: ReadmeTable, bound: { changes: string; snapshot: string } | undefined): string {
  const changesWhere = [table.snapshotAsOf !== undefined ? `sync_id > ${table.snapshotAsOf}` : '', bound?.changes ?? '']
    .filter(Boolean)
    .join(' AND ');
  const changes = `(SELECT * FROM ${changesRead(table.folder, table.retyped)}${changesWhere ? ` WHERE ${changesWhere}` : ''})`;
  const fromChanges = `${latest(changes, 'sync_id DESC, _valid_from DESC')}`;
  if (table.snapshotAsOf === undefined) return `SELECT * EXCLUDE (_n) FROM (${fromChanges}) WHERE _change <> 'deleted';`;
  const snapshotWhere = bound?.snapshot ?? '_valid_to IS NULL';
  const snapshot = `SELECT * FROM ${snapshotRead(table.folder, table.snapshotAsOf, table.retyped)} WHERE ${snapshotWhere}`;
  if (!table.hasChanges) return `${snapshot};`;
  return `WITH newer AS (${fromChanges})
${snapshot} AND _id NOT IN (SELECT _id FROM newer)
UNION ALL BY NAME
SELECT * EXCLUDE (_n) FROM newer WHERE _change <> 'deleted';`;
}

const TRINO_TYPES: Record<string, string> = {
  VARCHAR: 'varchar',
  DOUBLE: 'double',
  BOOLEAN: 'boolean',
  BIGINT: 'bigint',
  INTEGER: 'integer',
  'TIMESTAMP WITH TIME ZONE': 'timestamp(3) with time zone',
  JSON: 'varchar',
  'VARCHAR[]': 'array(varchar)',
};

function trinoColumns(table: ReadmeTable): string {
  return table.columns
    .map(({ key, type }) => `  "${key.replace(/"/g, '""')}" ${TRINO_TYPES[type] ?? 'varchar'}`)
    .concat(['  _change varchar', '  _valid_from timestamp(3) with time zone', '  sync_id bigint'])
    .join(',\n');
}

/** DuckDB's query of the table as it is now, from the folder at `folder` (a path DuckDB can read). */
export function lakeNowQuery(table: Omit<ReadmeTable, 'columns' | 'name'>): string {
  return duckdbAt({ ...table, name: '', columns: [] }, undefined).replace(/;$/, '');
}

const sqlName = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/** Which lake columns the mirror now names otherwise: a field keeps the name it first had in the lake. */
function relabelledNote(table: ReadmeTable): string {
  const relabelled = table.relabelled ?? [];
  if (relabelled.length === 0) return '';
  const pairs = relabelled.map(({ lake, mirror }) => `\`${sqlName(lake)}\` is \`${sqlName(mirror)}\``).join(', ');
  return `A field's column keeps the name it first had in this folder in every file, however the field is relabelled later (a new field whose name another field holds here gets \`Name (FIELD_ID)\`). The mirror names these columns otherwise now: ${pairs} (alias them to read the mirror's names, e.g. \`SELECT ${sqlName(relabelled[0]!.lake)} AS ${sqlName(relabelled[0]!.mirror)}\`); \`_truncated\` names the lake's.\n\n`;
}

/** Why the DuckDB queries name the partitions, when a retyped field's files are read apart. */
function retypedNote(table: ReadmeTable): string {
  const columns = table.retyped?.columns ?? [];
  if ((table.retyped?.runs.length ?? 0) === 0) return '';
  const names = columns.map((column) => `\`${sqlName(column.key)}\` (${column.type} now)`).join(', ');
  return `Retyped here: ${names}. DuckDB reading files of two types of a column together casts every value to one of them, which fails (text as JSON, text as a list, a number as a date) or is not what the mirror holds, so the DuckDB queries below read the partitions of each type apart, by number, and convert the older values as the mirror did. They name the partitions there are now: this README is written again with each new partition, so take the queries from it again after a sync.\n\n`;
}

/** The README of a table's folder. */
export function tableReadme(table: ReadmeTable): string {
  const f = table.folder;
  const snapshotNote =
    table.snapshotAsOf === undefined
      ? ''
      : `\`snapshot/as_of=${table.snapshotAsOf}/\` holds every version up to sync ${table.snapshotAsOf} (from \`tds lake compact\`), each with \`_valid_from\` and \`_valid_to\` (null: still current) and \`_replacedBy\` (the sync that replaced it); \`changes/\` holds the syncs after it${table.hasChanges ? '' : ' (none yet)'}. In Spark and Trino, read the snapshot's rows whose \`_valid_to\` is null and put the changes after sync ${table.snapshotAsOf} over them, as the DuckDB query below does.\n\n`;
  return `# ${f}: the lake of the table "${table.name}"

Written by \`tds sync --lake\`; do not edit. \`changes/sync_id=<N>/part-*.parquet\` holds one row per
version that sync N of the mirror wrote: the mirror's columns, \`_change\` (\`inserted\`, \`updated\`,
or \`deleted\`: a tombstone carrying the last values) and \`_valid_from\` (the service's clock). A
partition is whole when its \`_SUCCESS\` is there. Files written later can have more columns (a field
added later: read with union by name), and a retyped field keeps its old type in older files (the
DuckDB queries below convert those values as the mirror did; elsewhere, declare the newest type and cast).

${relabelledNote(table)}${retypedNote(table)}${snapshotNote}Run these from the lake's folder (the one that holds \`${f}/\`).

## DuckDB

\`\`\`sql
-- now
${duckdbAt(table, undefined)}

-- as of sync 42 (the mirror's ${f}_at_sync(42))
${duckdbAt(table, { changes: 'sync_id <= 42', snapshot: '_syncId <= 42 AND (_replacedBy IS NULL OR _replacedBy > 42)' })}

-- every version of one row, oldest first
SELECT * FROM ${changesRead(f, table.retyped)} WHERE _id = 'ROW_ID' ORDER BY sync_id, _valid_from;
\`\`\`

## Spark SQL

\`\`\`sql
CREATE OR REPLACE TEMPORARY VIEW ${f}_changes
USING parquet OPTIONS (path '${f}/changes', mergeSchema 'true');

-- now
SELECT * FROM (
  SELECT *, row_number() OVER (PARTITION BY _id ORDER BY sync_id DESC, _valid_from DESC) AS _n
  FROM ${f}_changes
) WHERE _n = 1 AND _change <> 'deleted';

-- as of a moment (the mirror's ${f}_at(MOMENT))
SELECT * FROM (
  SELECT *, row_number() OVER (PARTITION BY _id ORDER BY _valid_from DESC) AS _n
  FROM ${f}_changes WHERE _valid_from <= TIMESTAMP '2026-01-31 00:00:00 UTC'
) WHERE _n = 1 AND _change <> 'deleted';
\`\`\`

## Trino (Hive connector, the folder copied to an object store)

\`\`\`sql
CREATE TABLE hive.lake.${f}_changes (
${trinoColumns(table)}
) WITH (external_location = 's3://BUCKET/lake/${f}/changes', format = 'PARQUET', partitioned_by = ARRAY['sync_id']);
CALL hive.system.sync_partition_metadata('lake', '${f}_changes', 'ADD');

-- now
SELECT * FROM (
  SELECT *, row_number() OVER (PARTITION BY _id ORDER BY sync_id DESC, _valid_from DESC) AS _n
  FROM hive.lake.${f}_changes
) WHERE _n = 1 AND _change <> 'deleted';
\`\`\`
`;
}
