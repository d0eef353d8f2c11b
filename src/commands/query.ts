import { Command } from 'commander';
import type { Context } from '../core/context.js';
import { addExportOptions } from './export-options.js';

interface QueryOptions {
  where: string[];
  any?: boolean;
  filter?: string;
  explain?: boolean;
}

export function queryCommand(ctx: Context): Command {
  const command = new Command('query')
    .description(
      'export the rows that match column filters and a search (POST /tables/{id}/rows/query); the filters are ' +
        'checked against the schema before any row is read; same output options as `tds rows`',
    )
    .argument('<table>', 'table ID or exact name')
    .option(
      '--where <expr>',
      'a filter expression, e.g. \'Stage = "Closed Won" and Employees >= 100\' (repeatable: joined with and)',
      collect,
      [],
    )
    .option('--any', 'join several --where with or instead of and')
    .option('--filter <json>', "the service's filter group as JSON text, @FILE or - (stdin); fieldIds may be labels")
    .option('--explain', 'print the request body that would be sent, and read no rows');
  addExportOptions(command)
    .addHelpText(
      'after',
      `
Examples:
  $ tds query Leads --where 'Stage = "Closed Won"' -o won.csv
  $ tds query Leads --where "Employees >= 1000" -o big.parquet --no-meta
  $ tds query Leads --where "Employees >= 1000" --where "Qualified = true" --format ndjson
  $ tds query Leads --where 'Tags in [VIP, Partner] or "Last Contacted" isDatePreset last7Days'
  $ tds query Leads --filter @filter.json -q acme --explain
  $ tds query Leads --where "Enrich hasError" --status-columns -o failed.csv`,
    )
    .action(async (table: string, options: QueryOptions, cmd: Command) => {
      const { readFilterText } = await import('./export-action.js');
      const { runExportCommand } = await import('./export-action.js');
      const stdinTaken = cmd.optsWithGlobals<{ apiKeyFile?: string }>().apiKeyFile === '-';
      const filterText = options.filter === undefined ? undefined : await readFilterText(ctx, options.filter, stdinTaken);
      await runExportCommand(ctx, cmd, table, {
        where: options.where,
        any: Boolean(options.any),
        ...(filterText !== undefined ? { filterText } : {}),
        explain: Boolean(options.explain),
      });
    });
  return command;
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}
