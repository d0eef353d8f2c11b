import type { Command } from 'commander';
import type { Context } from '../core/context.js';
import { loadSettings } from '../config/settings.js';
import { withClient } from './client.js';
import { chooseExportFormat, type ExportFormat } from '../output/format.js';
import { writeListingAs } from './listing-output.js';
import type { Workspace } from '../service/index.js';

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
