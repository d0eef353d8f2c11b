import { Command } from 'commander';
import type { Context } from '../core/context.js';
import { addOutputOptions } from './options.js';
import type { ExportFormat } from '../output/format.js';

export function workspacesCommand(ctx: Context): Command {
  const command = new Command('workspaces')
    .description('list the workspaces of the organization, with their table counts (GET /workspaces)')
    .addHelpText(
      'after',
      `
Examples:
  $ tds workspaces
  $ tds workspaces --format json | jq -r '.[].name'
  $ tds workspaces -o workspaces.csv`,
    );
  addOutputOptions(command).action(async (options: { format?: ExportFormat; output?: string }, cmd: Command) => {
    const { workspacesAction } = await import('./workspaces-action.js');
    await workspacesAction(ctx, options, cmd);
  });
  return command;
}
