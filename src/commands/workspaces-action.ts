import type { Command } from 'commander';
import type { Context } from '../core/context.js';
import { loadSettings } from '../config/settings.js';
import { withClient } from './client.js';
import { chooseFormat, type Format } from '../output/format.js';
import { writeListing } from '../output/table.js';
import type { Workspace } from '../spec/index.js';

export async function workspacesAction(ctx: Context, options: { format?: Format; output?: string }, cmd: Command): Promise<void> {
  const settings = await loadSettings(ctx, cmd);
  const format = chooseFormat({ ...options, fallback: settings.defaultFormat ?? 'table' });
  const { workspaces } = await withClient(ctx, settings, (client) => client.workspaces());
  await writeListing<Workspace>(ctx, workspaces, {
    format,
    output: options.output,
    fields: ['id', 'name', 'tableCount'],
    columns: [
      { header: 'ID', value: (w) => w.id, style: (c, t) => c.dim(t) },
      { header: 'NAME', value: (w) => w.name, shrink: true },
      { header: 'TABLES', value: (w) => w.tableCount, align: 'right' },
    ],
    emptyMessage: 'no workspaces in this organization',
  });
}
