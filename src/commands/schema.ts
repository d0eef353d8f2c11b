import { Command } from 'commander';
import type { Context } from '../core/context.js';
import { addOutputOptions } from './options.js';
import type { ExportFormat } from '../output/format.js';

export function schemaCommand(ctx: Context): Command {
  const command = new Command('schema')
    .description("show a table's columns: ID, label, name, type, options and system flag (GET /tables/{id}/schema)")
    .argument('<table>', 'table ID or exact table name')
    .addHelpText(
      'after',
      `
A label marked * is shared by several columns; refer to those by ID or name.

Examples:
  $ tds schema Leads
  $ tds schema tbl_8f2k --format json
  $ tds schema "Edge Cases" -o columns.csv`,
    );
  addOutputOptions(command).action(async (ref: string, options: { format?: ExportFormat; output?: string }, cmd: Command) => {
    const { schemaAction } = await import('./schema-action.js');
    await schemaAction(ctx, ref, options, cmd);
  });
  return command;
}
