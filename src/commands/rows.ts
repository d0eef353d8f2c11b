import { Command } from 'commander';
import type { Context } from '../core/context.js';
import { parseNumberOption } from '../core/number-option.js';
import { FOLLOW_EVERY_DEFAULT_S } from '../export/export-flags.js';
import { addExportOptions } from './export-options.js';

export function rowsCommand(ctx: Context): Command {
  const command = new Command('rows')
    .description(
      'export every row of a table as CSV (default), TSV, NDJSON, JSON, Parquet (typed columns) or a table for the terminal, each row once, ' +
        'written as pages arrive (GET /tables/{id}/rows); -o FILE is written atomically and can be resumed after an ' +
        'interruption; --follow keeps writing the rows created afterwards',
    )
    .argument('<table>', 'table ID or exact name');
  addExportOptions(command)
    .option('--follow', 'after the export, keep writing the rows created since, as they appear, until Ctrl-C (csv, tsv, ndjson)')
    .option(
      '--every <seconds>',
      `with --follow: seconds between two looks at the newest rows (default ${FOLLOW_EVERY_DEFAULT_S}; each costs one row read of the 60 a minute)`,
      parseNumberOption('--every', 0.01, 86_400),
    )
    .addHelpText(
      'after',
      `
Examples:
  $ tds rows Leads > leads.csv
  $ tds rows Leads -o leads.ndjson --columns "Name,Email,Stage" --no-meta
  $ tds rows Leads -q acme -n 50 --format json
  $ tds rows Leads -o leads.csv --excel --status-columns
  $ tds rows Leads -o leads.csv --resume          # continue after Ctrl-C or a failure
  $ tds rows Leads -o leads.parquet               # typed columns, as the mirror's (numbers, dates, lists, JSON)
  $ tds rows Leads --format table                 # a screenful, sized to the terminal
  $ tds rows Signups --follow -n 10 --format ndjson   # the newest 10 rows, then new rows as they appear`,
    )
    .action(async (table: string, _options: unknown, cmd: Command) => {
      const { runExportCommand } = await import('./export-action.js');
      await runExportCommand(ctx, cmd, table);
    });
  return command;
}
