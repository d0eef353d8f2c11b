import { Command } from 'commander';
import type { Context } from '../core/context.js';
import { addExportOptions } from './export-options.js';

export function rowsCommand(ctx: Context): Command {
  const command = new Command('rows')
    .description(
      'export every row of a table as CSV (default), TSV, NDJSON or JSON, each row once, written as pages arrive ' +
        '(GET /tables/{id}/rows); -o FILE is written atomically and can be resumed after an interruption',
    )
    .argument('<table>', 'table ID or exact name');
  addExportOptions(command)
    .addHelpText(
      'after',
      `
Examples:
  $ tds rows Leads > leads.csv
  $ tds rows Leads -o leads.ndjson --columns "Name,Email,Stage" --no-meta
  $ tds rows Leads -q acme -n 50 --format json
  $ tds rows Leads -o leads.csv --excel --status-columns
  $ tds rows Leads -o leads.csv --resume          # continue after Ctrl-C or a failure`,
    )
    .action(async (table: string, _options: unknown, cmd: Command) => {
      const { runExportCommand } = await import('./export-action.js');
      await runExportCommand(ctx, cmd, table);
    });
  return command;
}
