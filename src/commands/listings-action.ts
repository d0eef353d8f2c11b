// What `tds workspaces`, `tds tables` and `tds schema` do: one listing each, written as a table, JSON,
// CSV or Parquet (the Parquet writer is loaded only for -o FILE.parquet).

import type { Command } from 'commander';
import { type Context, UsageError } from '../core/index.js';
import { loadSettings } from '../config/index.js';
import { withClient } from './connect.js';
import { chooseExportFormat, type ExportFormat, tableOutput, writeListing, type ListingLayout } from '../output/index.js';
import type { Workspace, Table, Field } from '../service/index.js';
import { resolveWorkspace, resolveTable } from '../http/index.js';
import type { ListingColumn } from '../parquet/index.js';

export async function workspacesAction(ctx: Context, options: { format?: ExportFormat; output?: string }, cmd: Command): Promise<void> {
  const settings = await loadSettings(ctx, cmd);
  const format = chooseExportFormat({ ...options, fallback: settings.defaultFormat ?? 'table' });
  const { workspaces } = await withClient(ctx, settings, (client) => client.workspaces());
  await writeListingAs<Workspace>(ctx, workspaces, {
    format,
    output: options.output,
    parquetTypes: { id: 'VARCHAR', name: 'VARCHAR', tableCount: 'BIGINT' },
    fields: ['id', 'name', 'tableCount'],
    columns: [
      { header: 'ID', value: (w) => w.id, style: (c, t) => c.dim(t) },
      { header: 'NAME', value: (w) => w.name, shrink: true },
      { header: 'TABLES', value: (w) => w.tableCount, align: 'right' },
    ],
    emptyMessage: 'no workspaces in this organization',
  });
}

export interface TablesOptions {
  workspace?: string;
  format?: ExportFormat;
  output?: string;
}

export async function tablesAction(ctx: Context, options: TablesOptions, cmd: Command): Promise<void> {
  const settings = await loadSettings(ctx, cmd);
  const format = chooseExportFormat({ ...options, fallback: settings.defaultFormat ?? 'table' });
  const { tables } = await withClient(ctx, settings, async (client) => {
    const workspaceId = options.workspace === undefined ? undefined : (await resolveWorkspace(client, options.workspace)).id;
    return client.tables({ workspaceId });
  });
  const { emojiFor } = await tableOutput();
  await writeListingAs<Table>(ctx, tables, {
    format,
    output: options.output,
    parquetTypes: {
      id: 'VARCHAR',
      name: 'VARCHAR',
      emoji: 'VARCHAR',
      workspaceId: 'VARCHAR',
      workspaceName: 'VARCHAR',
      rowCount: 'BIGINT',
      fieldCount: 'BIGINT',
    },
    fields: ['id', 'name', 'emoji', 'workspaceId', 'workspaceName', 'rowCount', 'fieldCount'],
    columns: [
      { header: 'ID', value: (t) => t.id, style: (c, text) => c.dim(text) },
      { header: 'NAME', value: (t) => (t.emoji ? `${emojiFor(t.emoji)} ${t.name}` : t.name), shrink: true },
      { header: 'WORKSPACE', value: (t) => t.workspaceName, shrink: true },
      { header: 'ROWS', value: (t) => t.rowCount, align: 'right' },
      { header: 'COLUMNS', value: (t) => t.fieldCount, align: 'right' },
    ],
    emptyMessage: options.workspace === undefined ? 'no tables in this organization' : 'no tables in this workspace',
  });
}

const SHARED_MARK = ' *';

export async function schemaAction(
  ctx: Context,
  ref: string,
  options: { format?: ExportFormat; output?: string },
  cmd: Command,
): Promise<void> {
  const settings = await loadSettings(ctx, cmd);
  const format = chooseExportFormat({ ...options, fallback: settings.defaultFormat ?? 'table' });
  const { fields } = await withClient(ctx, settings, async (client) => client.schema((await resolveTable(client, ref)).id));
  const shared = sharedLabels(fields);
  await writeListingAs<Field>(ctx, fields, {
    format,
    output: options.output,
    parquetTypes: { id: 'VARCHAR', name: 'VARCHAR', label: 'VARCHAR', type: 'VARCHAR', options: 'JSON', isSystem: 'BOOLEAN' },
    fields: ['id', 'name', 'label', 'type', 'options', 'isSystem'],
    columns: [
      { header: 'ID', value: (f) => f.id, style: (c, t) => c.dim(t) },
      { header: 'LABEL', value: (f) => (shared.has(f.label) ? `${f.label}${SHARED_MARK}` : f.label), shrink: true },
      { header: 'NAME', value: (f) => f.name, shrink: true },
      { header: 'TYPE', value: (f) => f.type },
      { header: 'OPTIONS', value: (f) => f.options?.map((o) => o.label).join(', '), shrink: true },
      { header: 'SYSTEM', value: (f) => (f.isSystem ? 'yes' : '') },
    ],
    emptyMessage: 'this table has no columns',
    footer: () => (shared.size ? '* label shared by several columns: refer to them by ID or name' : undefined),
  });
}

function sharedLabels(fields: Field[]): Set<string> {
  const counts = new Map<string, number>();
  for (const field of fields) counts.set(field.label, (counts.get(field.label) ?? 0) + 1);
  return new Set([...counts].filter(([, count]) => count > 1).map(([label]) => label));
}

/** A listing's spec with the export formats, and the Parquet type of each of its fields. */
export interface ListingOutput<T> extends Omit<ListingLayout<T>, 'format'> {
  format: ExportFormat;
  parquetTypes: Record<string, ListingColumn['type']>;
}

/** Writes a listing like every format (see writeListing), or as Parquet to `-o FILE` (DuckDB, loaded only then). */
export async function writeListingAs<T extends object>(ctx: Context, items: T[], spec: ListingOutput<T>): Promise<void> {
  const { format, parquetTypes, ...rest } = spec;
  if (format !== 'parquet') return writeListing(ctx, items, { ...rest, format });
  if (!spec.output || spec.output === '-') {
    throw new UsageError('parquet needs -o FILE: it is a binary format, never written to a terminal', {
      hint: 'e.g. tds tables -o tables.parquet',
    });
  }
  const { writeParquetListing } = await import('../parquet/index.js');
  const columns = spec.fields.map((key) => ({ key, type: parquetTypes[key] ?? 'VARCHAR' }));
  await writeParquetListing(items, columns, spec.output);
}
