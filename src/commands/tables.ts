import { Command } from 'commander';
import type { Context } from '../core/context.js';
import { addOutputOptions } from './options.js';
import type { TablesOptions } from './tables-action.js';

export function tablesCommand(ctx: Context): Command {
  const command = new Command('tables')
    .description('list the tables of the organization, or of one workspace, with row and column counts (GET /tables)')
    .option('-w, --workspace <id|name>', 'only the tables of this workspace (its ID or exact name)')
    .addHelpText(
      'after',
      `
Examples:
  $ tds tables
  $ tds tables --workspace Sales
  $ tds tables --format ndjson -o tables.ndjson`,
    );
  addOutputOptions(command).action(async (options: TablesOptions, cmd: Command) => {
    const { tablesAction } = await import('./tables-action.js');
    await tablesAction(ctx, options, cmd);
  });
  return command;
}
