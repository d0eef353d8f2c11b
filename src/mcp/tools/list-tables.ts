import { z } from 'zod';
import { TdsError } from '../../core/index.js';
import type { ApiClient } from '../../http/index.js';
import type { StaleFields, TableState } from '../../mirror/index.js';
import type { Table } from '../../service/index.js';
import { capRows, truncation, defineTool, type Tool } from '../tool.js';
import type { MirrorTable } from '../catalog.js';
import { staleSchema, type Session } from '../session.js';

const tableEntry = z.object({
  id: z.string(),
  name: z.string(),
  workspace: z.string().nullable(),
  rows: z.number().nullable().describe("the service's row count (null: not known without the API key, or the table is gone)"),
  columns: z.number().nullable(),
  mirror: z
    .object({
      table: z.string(),
      rows: z.number().nullable(),
      lastSync: z.string().nullable(),
      verifiedAt: z.string().nullable(),
      ...staleSchema,
    })
    .nullable()
    .describe(
      'the mirror table (for query_sql), its rows at the last sync and when that was, verifiedAt: exact as of then (its last pass over every row), and whether that is past the bound its follower keeps (stale); null when not mirrored',
    ),
});
type TableEntry = z.infer<typeof tableEntry>;

const input = z.object({ workspace: z.string().min(1).optional().describe('a workspace ID or exact name: only its tables') }).strict();

export function listTablesTool(session: Session): Tool<typeof input> {
  return defineTool({
    name: 'list_tables',
    title: 'List tables',
    description: [
      "Lists the organization's tables (needs the API key) and the tables of the local mirror, one entry each:",
      'id, name, workspace, rows and columns in the service, and `mirror` (the DuckDB table name that query_sql uses,',
      'its rows at the last sync and when that was; null when the table is not mirrored).',
      "Call it first; then describe_table for a table's columns. `workspace` (an ID or exact name) keeps one workspace.",
      `At most ${session.caps.maxRows} tables per result (truncated: true says when there are more: name a workspace).`,
    ].join(' '),
    input,
    output: z.object({
      tables: z.array(tableEntry),
      table_count: z.number(),
      mirror: z.string(),
      notes: z.array(z.string()),
      truncated: z.boolean(),
      hint: z.string().optional(),
    }),
    annotations: { readOnlyHint: true, openWorldHint: true },
    async run(args) {
      // loaded by the first call: the server answers `initialize` without the tools' code
      const [{ readCatalog }, { staleFields }] = await Promise.all([import('../catalog.js'), import('../../mirror/index.js')]);
      const notes: string[] = [];
      const service = await serviceTables(session, args.workspace, notes);
      const catalog = await readCatalog(session);
      if (catalog.note) notes.push(catalog.note);
      const now = await session.now();
      const entries = merge(service, workspaceTables(catalog.tables, args.workspace), (state) => staleFields(state, now));
      const { result } = capRows(entries, session.caps, (tables, cutBy) => ({
        tables,
        table_count: entries.length,
        mirror: session.mirror.path,
        notes,
        ...truncation({ cutBy, kept: tables.length, total: entries.length }, session.caps, 'name a workspace to see fewer', 'tables'),
      }));
      return result;
    },
  });
}

/** The service's tables, or undefined (with a note) when the settings have no API key or base URL. */
async function serviceTables(session: Session, workspace: string | undefined, notes: string[]): Promise<Table[] | undefined> {
  let client: ApiClient;
  try {
    client = await session.service();
  } catch (error) {
    if (!(error instanceof TdsError)) throw error;
    notes.push(`only the mirror's tables are listed: ${error.message}`);
    return undefined;
  }
  const { resolveWorkspace } = await import('../../http/index.js');
  const workspaceId = workspace === undefined ? undefined : (await resolveWorkspace(client, workspace)).id;
  return (await client.tables({ workspaceId })).tables;
}

function workspaceTables(tables: readonly MirrorTable[], workspace: string | undefined): MirrorTable[] {
  if (workspace === undefined) return [...tables];
  return tables.filter(({ state }) => state.workspaceId === workspace || state.workspaceName === workspace);
}

/** Whether a mirror table is past the bound its follower keeps, by the service's clock when it answered. */
type Staleness = (state: TableState) => StaleFields;

/**
 * The service's tables with their mirror tables, then the mirror's tables the service no longer has (or that it did not list);
 * `stale` says which are stale.
 */
function merge(service: Table[] | undefined, mirrored: MirrorTable[], stale: Staleness): TableEntry[] {
  const byId = new Map(mirrored.map((table) => [table.state.tableId, table]));
  const entries: TableEntry[] = (service ?? []).map((table) => ({
    id: table.id,
    name: table.name,
    workspace: table.workspaceName,
    rows: table.rowCount,
    columns: table.fieldCount,
    mirror: mirrorOf(byId.get(table.id), stale),
  }));
  const listed = new Set(entries.map((entry) => entry.id));
  for (const table of mirrored) {
    if (listed.has(table.state.tableId)) continue;
    entries.push({
      id: table.state.tableId,
      name: table.state.name,
      workspace: table.state.workspaceName || null,
      rows: null,
      columns: table.columns,
      mirror: mirrorOf(table, stale),
    });
  }
  return entries;
}

function mirrorOf(table: MirrorTable | undefined, stale: Staleness): TableEntry['mirror'] {
  if (!table) return null;
  return {
    table: table.state.mirrorTable,
    rows: table.state.rowCount,
    lastSync: table.state.lastSyncAt,
    verifiedAt: table.state.verifiedAt,
    ...stale(table.state),
  };
}
