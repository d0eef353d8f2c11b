// `tds stats`: a table's profile from the mirror, after an incremental sync of the table (--no-sync: the
// mirror as it is); its action is in stats-action.ts.

import { Command, Option } from 'commander';
import { type Context, parseIntegerOption } from '../core/options.js';
import type { StatsOptions } from './stats-action.js';
import { SUMMARIES } from './summaries.js';

const STATS_HELP = `
Syncs the table into the mirror first (incrementally; a table not mirrored yet gets its first sync,
with the usual progress), then profiles it there: every figure is computed by DuckDB, exactly.

  table     rows, columns, first and last creation time, rows created per day, the last sync
  columns   per field: filled cells and fill, distinct values, the most common values (--top),
            numbers' min, max and mean, dates' min and max, cells cut at 200 characters
  actions   per action column: the count of each run state (none included), and the failure
            causes: error messages grouped across their variable parts (numbers, quoted text,
            e-mail addresses, domains, URLs, IDs), most frequent first, with an example and row IDs

Output: sections with bars on a terminal, JSON ({"table": …, "columns": […]}) otherwise; --format
ndjson|csv|tsv gives one record per column. -o FILE writes atomically, in the format its extension
names; -o FILE.html is a report page: self-contained (no script, no outside style, font or
image), charts as inline SVG, for a browser or for print.

Examples:
  $ tds stats Leads
  $ tds stats Leads --no-sync --columns Enrich,Stage --top 10
  $ tds stats Leads -o leads-report.html
  $ tds stats Leads --format json | jq '.columns[] | select(.errors) | .errors[0]'`;

export function statsCommand(ctx: Context): Command {
  return new Command('stats')
    .description(SUMMARIES.stats.description)
    .argument('<table>', 'table ID or exact name')
    .option('--db <file>', 'the mirror file (default: TDS_DB, the `db` setting, or tds.duckdb here)')
    .option('--no-sync', 'use the mirror as it is (no request to the service)')
    .option('--columns <list>', 'only these fields, in this order: keys, labels, names or IDs, comma-separated')
    .option('--top <n>', 'most common values per field (default 5)', parseIntegerOption('--top', 0, 100))
    .addOption(
      new Option('--format <format>', 'output format (default: table on a terminal, json otherwise)').choices([
        'table',
        'json',
        'ndjson',
        'csv',
        'tsv',
        'html',
      ]),
    )
    .option('-o, --output <file>', 'write to FILE (atomically), in the format of its extension (.html .json .ndjson .csv .tsv)')
    .addHelpText('after', STATS_HELP)
    .action(async (table: string, options: StatsOptions, command: Command) => {
      const { statsAction } = await import('./stats-action.js');
      await statsAction(ctx, table, options, command);
    });
}
