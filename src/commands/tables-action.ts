import type { Command } from 'commander';
import type { Context } from '../core/context.js';
import { loadSettings } from '../config/settings.js';
import { withClient } from './client.js';
import { resolveWorkspace } from '../http/resolve-workspace.js';
import { chooseExportFormat, type ExportFormat } from '../output/format.js';
import { emojiFor } from '../output/table.js';
import { writeListingAs } from './listing-output.js';
import type { Table } from '../service/index.js';

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
