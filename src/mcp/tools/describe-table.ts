import { z } from 'zod';
import { TdsError } from '../../core/index.js';
import type { ApiClient } from '../../http/index.js';
import type { ColumnRole, TypedColumn } from '../../records/index.js';
import type { TableStats } from '../../stats/index.js';
import { capRows, truncation, defineTool, type Tool } from '../tool.js';
import type { MirrorTable } from '../catalog.js';
import { staleSchema, type Session } from '../session.js';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { StoredField } from '../../mirror/index.js';
import type { Field } from '../../service/index.js';

const tableSummary = z.object({
  id: z.string(),
  name: z.string(),
  workspace: z.string().nullable(),
  mirrorTable: z.string().nullable().describe('the table name for query_sql; null when not mirrored'),
  rows: z.number().nullable().describe("rows in the mirror at its last sync (mirrored), else the service's row count"),
  lastSync: z.string().nullable(),
  verifiedAt: z.string().nullable().describe('the mirror is exact as of this moment (its last pass over every row); null: not yet'),
  ...staleSchema,
  lake: z.string().nullable().describe('the folder of its changes as Parquet (tds sync --lake), if any'),
});
type TableSummary = z.infer<typeof tableSummary>;

const webhookEntry = z.object({
  webhook: z.string().describe('the webhook URL as displayed (redacted)'),
  submissions: z.number().describe('objects it took in, as tds counted them (its pushes and push_records calls)'),
  uncertain: z.number().describe('objects of requests whose outcome is unknown: counted as used'),
  budget: z.number().nullable().describe('submissions a webhook takes in its lifetime (webhook-budget); null: off'),
  left: z.number().nullable().describe('what is left of the budget: push_records stops before going past it'),
  lastUse: z.string().nullable(),
});

interface Description {
  table: TableSummary;
  columns: ColumnEntry[];
  notes: string[];
}

const input = z.object({ table: z.string().min(1).describe('a table ID, exact name, or mirror table name') }).strict();

export function describeTableTool(session: Session): Tool<typeof input> {
  return defineTool({
    name: 'describe_table',
    title: 'Describe a table',
    description: [
      "A table's columns as query_sql sees them: for each, its key (the column name: double-quote it in SQL when it has",
      'spaces or capitals, e.g. "Last Contacted"), its DuckDB type, and the field it comes from (label, type, the option',
      "labels of a select); for a mirrored table also each field's fill (0-1) and an action column's run states. Also",
      "the table's rows and last sync. `table` is a table ID, its exact name, or its mirror table name. A mirrored table",
      'is described from the mirror (no request); another one from the service (needs the API key), with the columns a',
      'sync would give it. table_stats has every figure (values, failure causes). `webhooks`: the webhooks of the table',
      'tds has pushed to and what is left of the budget of submissions each takes in its lifetime.',
    ].join(' '),
    input,
    output: z.object({
      table: tableSummary,
      columns: z.array(columnEntry),
      webhooks: z.array(webhookEntry).describe("the table's webhooks tds has pushed to, with what is left of each one's budget"),
      notes: z.array(z.string()),
      truncated: z.boolean(),
      hint: z.string().optional(),
    }),
    annotations: { readOnlyHint: true, openWorldHint: true },
    async run(args) {
      const description = { ...(await describe(session, args.table)), webhooks: [] as Array<z.infer<typeof webhookEntry>> };
      description.webhooks = await webhooksOf(session, description.table.name);
      const caps = { ...session.caps, maxRows: Number.MAX_SAFE_INTEGER };
      const total = description.columns.length;
      return capRows(description.columns, caps, (columns, cutBy) => ({
        ...description,
        columns,
        ...truncation(
          { cutBy, kept: columns.length, total },
          caps,
          'the columns left out are in the mirror: SELECT * FROM duckdb_columns()',
          'columns',
        ),
      })).result;
    },
  });
}

/** The webhooks of the table that tds's ledger knows (by the table's name, as pushes recorded it). */
async function webhooksOf(session: Session, table: string): Promise<Array<z.infer<typeof webhookEntry>>> {
  const { dataDir, listLedgers } = await import('../../push/ledger/index.js');
  const budget = session.options.delivery.webhookBudget ?? null;
  return (await listLedgers(dataDir(session.ctx.io.env)))
    .filter((known) => known.table === table)
    .map((known) => ({
      webhook: known.displayUrl,
      submissions: known.count.submissions,
      uncertain: known.count.uncertain,
      budget,
      left: budget === null ? null : Math.max(0, budget - known.count.submissions - known.count.uncertain),
      lastUse: known.count.lastUse ?? null,
    }));
}

async function describe(session: Session, ref: string): Promise<Description> {
  // loaded by the first call: the server answers `initialize` without the tools' code
  const { findMirrorTable, readCatalog, requireMirrorTable } = await import('../catalog.js');
  const catalog = await readCatalog(session);
  const mirrored = findMirrorTable(catalog.tables, ref);
  if (mirrored) return describeMirrored(session, mirrored);
  let client: ApiClient;
  try {
    client = await session.service();
  } catch (error) {
    // without the service, the mirror is all there is to look in
    if (error instanceof TdsError) requireMirrorTable(catalog, ref);
    throw error;
  }
  return describeFromService(client, ref, catalog.note);
}

async function describeMirrored(session: Session, table: MirrorTable): Promise<Description> {
  const { state } = table;
  // loaded by the first call that needs it: the server answers `initialize` without the tools' code
  const [{ tableStats }, { staleFields }] = await Promise.all([import('../../stats/figures.js'), import('../../mirror/index.js')]);
  const { columns, rows, lake } = await session.mirror.read(async (db) => {
    const stats = await tableStats(db.connection, { table: state.tableId, db: session.mirror.path, top: 0 });
    return {
      columns: withProfile(await mirroredColumns(db.connection, state.tableId, state.mirrorTable), stats),
      rows: stats.table.rows,
      lake: stats.table.lake,
    };
  });
  return {
    table: {
      id: state.tableId,
      name: state.name,
      workspace: state.workspaceName || null,
      mirrorTable: state.mirrorTable,
      rows,
      lastSync: state.lastSyncAt,
      verifiedAt: state.verifiedAt,
      ...staleFields(state, await session.now()),
      lake,
    },
    columns,
    notes: [],
  };
}

async function describeFromService(client: ApiClient, ref: string, mirrorNote: string | undefined): Promise<Description> {
  const { pickTable, typedPlan } = await import('../../records/index.js');
  const table = pickTable((await client.tables()).tables, ref);
  const { fields } = await client.schema(table.id);
  return {
    table: {
      id: table.id,
      name: table.name,
      workspace: table.workspaceName,
      mirrorTable: null,
      rows: table.rowCount,
      lastSync: null,
      verifiedAt: null,
      maxStale: null,
      stale: false,
      staleFor: null,
      lake: null,
    },
    columns: plannedColumns(typedPlan(fields, { header: 'label' })),
    notes: [
      ...(mirrorNote ? [mirrorNote] : []),
      'not mirrored: the columns are those a sync would make; sync_tables mirrors it for query_sql, or read a few live rows with search_rows',
    ],
  };
}

/** Each field's fill (0-1) and, for an action column, its run states (those that occur), from the stats. */
function withProfile(columns: ColumnEntry[], stats: TableStats): ColumnEntry[] {
  const byKey = new Map(stats.columns.map((column) => [column.key, column]));
  return columns.map((column) => {
    const figures = column.role === 'value' ? byKey.get(column.key) : undefined;
    if (!figures) return column;
    const states = figures.states && Object.fromEntries(Object.entries(figures.states).filter(([, count]) => count > 0));
    return { ...column, fill: Math.round(figures.fill * 1000) / 1000, ...(states ? { states } : {}) };
  });
}

// A table's columns as SQL over the mirror sees them: each key (the export's key, quoted in SQL when it
// has spaces or capitals), its DuckDB type, and the field it comes from.

export const columnEntry = z.object({
  key: z.string().describe('the column name in the mirror and in records'),
  sqlType: z.string(),
  role: z.string().describe('id, meta, value (a field), status / error (of an action column), truncated, or other'),
  label: z.string().optional(),
  name: z.string().optional(),
  type: z.string().optional().describe("the field's type in the service"),
  fieldId: z.string().optional(),
  options: z.array(z.string()).optional().describe('select / multi_select: the option labels (the values stored)'),
  removed: z.boolean().optional().describe('the field was removed from the service; the mirror keeps its column'),
  fill: z.number().optional().describe('mirrored: the share of rows with a value (0-1)'),
  states: z.record(z.string(), z.number()).optional().describe('mirrored action column: its cells by run state'),
});
export type ColumnEntry = z.infer<typeof columnEntry>;

/** What the mirror table's columns are (DuckDB's own list, in order), with what _tds_columns says of their fields. */
export async function mirroredColumns(connection: DuckDBConnection, tableId: string, mirrorTable: string): Promise<ColumnEntry[]> {
  const [{ loadFields }, { META_KEYS, TRUNCATED_KEY }] = await Promise.all([
    import('../../mirror/index.js'),
    import('../../records/index.js'),
  ]);
  const builtInRole = (key: string): string => {
    if (key === '_id') return 'id';
    if ((META_KEYS as readonly string[]).includes(key)) return 'meta';
    if (key === TRUNCATED_KEY) return 'truncated';
    return 'other';
  };
  const fields = await loadFields(connection, tableId);
  const reader = await connection.runAndReadAll(
    'SELECT column_name, data_type FROM duckdb_columns() ' +
      "WHERE database_name = current_database() AND schema_name = 'main' AND table_name = $1 ORDER BY column_index",
    [mirrorTable],
  );
  const byKey = new Map<string, { field: StoredField; role: ColumnRole }>();
  for (const field of fields) {
    byKey.set(field.key, { field, role: 'value' });
    if (field.statusKey) byKey.set(field.statusKey, { field, role: 'status' });
    if (field.errorKey) byKey.set(field.errorKey, { field, role: 'error' });
  }
  return reader.getRowObjectsJS().map((row) => {
    const key = String(row.column_name);
    const sqlType = String(row.data_type);
    const known = byKey.get(key);
    if (!known) return { key, sqlType, role: builtInRole(key) };
    const { field, role } = known;
    return {
      key,
      sqlType,
      role,
      ...fieldMembers({ id: field.fieldId, label: field.label, name: field.name, type: field.type, options: field.options }),
      ...(field.removed ? { removed: true } : {}),
    };
  });
}

/** The columns a sync would give the table (for a table not mirrored yet): its typed plan, keys by label. */
export function plannedColumns(plan: ReadonlyArray<TypedColumn>): ColumnEntry[] {
  return plan.map((column) => ({
    key: column.key,
    sqlType: column.type,
    role: column.role,
    ...(column.field ? fieldMembers(column.field) : {}),
  }));
}

function fieldMembers(field: Pick<Field, 'id' | 'label' | 'name' | 'type' | 'options'>): Partial<ColumnEntry> {
  return {
    label: field.label,
    name: field.name,
    type: field.type,
    fieldId: field.id,
    ...(field.options ? { options: field.options.map((option) => option.label) } : {}),
  };
}
