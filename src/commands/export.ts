// The exports: `tds rows` and `tds query` (options and help); export-action.ts runs them.

import { Command, Option } from 'commander';
import { type Context, parseNumberOption, parseIntegerOption } from '../core/options.js';
import { FOLLOW_EVERY_DEFAULT_S, SPREADSHEET_CELL_MAX_CHARS } from '../export/options.js';
import { EXPORT_FORMATS } from '../output/options.js';
import { CELLS_MODES, HEADER_MODES } from '../records/options.js';
import { PAGE_LIMIT_DEFAULT, PAGE_LIMIT_MAX, PAGE_LIMIT_MIN, SEARCH_MAX_CHARS } from '../service/index.js';
import { SUMMARIES } from './summaries.js';

export function rowsCommand(ctx: Context): Command {
  const command = new Command('rows').description(SUMMARIES.rows.description).argument('<table>', 'table ID or exact name');
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
  $ tds rows Leads -o leads.csv --excel eu    # ; and 3,5 for Excel in most of Europe
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

interface QueryOptions {
  where: string[];
  any?: boolean;
  filter?: string;
  explain?: boolean;
}

export function queryCommand(ctx: Context): Command {
  const command = new Command('query')
    .description(SUMMARIES.query.description)
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
A run state is filtered by its export key: --where 'Enrich.status in [queued, running]' (states: success,
failed, skipped, stopped, queued, waiting, running, manual, none). tds tests it on each row the service
returns, which is sent the operator that covers the state where one does (failed: hasError); stderr
says how many rows were read, --explain what runs where.

Examples:
  $ tds query Leads --where 'Stage = "Closed Won"' -o won.csv
  $ tds query Leads --where "Employees >= 1000" -o big.parquet --no-meta
  $ tds query Leads --where "Employees >= 1000" --where "Qualified = true" --format ndjson
  $ tds query Leads --where 'Tags in [VIP, Partner] or "Last Contacted" isDatePreset last7Days'
  $ tds query Leads --filter @filter.json -q acme --explain
  $ tds query Leads --where "Enrich.status = failed" --status-columns -o failed.csv`,
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

/** Output, shaping, paging and resume flags shared by rows and query. */
export function addExportOptions(command: Command): Command {
  return command
    .addOption(new Option('--format <format>', 'output format (parquet: typed columns, -o FILE only; default csv)').choices(EXPORT_FORMATS))
    .option('-o, --output <file>', 'write data to FILE (atomically, resumable); the format follows its extension, .parquet included')
    .option('-q, --search <text>', `case-insensitive text search across the cells (at most ${SEARCH_MAX_CHARS} characters)`)
    .option('-n, --limit <n>', 'stop after N rows in all', parseIntegerOption('--limit', 1, Number.MAX_SAFE_INTEGER))
    .option(
      '--page-size <n>',
      `rows per request, ${PAGE_LIMIT_MIN}-${PAGE_LIMIT_MAX}`,
      parseIntegerOption('--page-size', PAGE_LIMIT_MIN, PAGE_LIMIT_MAX),
      PAGE_LIMIT_DEFAULT,
    )
    .addOption(new Option('--header <kind>', 'column keys: labels, names or IDs').choices(HEADER_MODES).default('label'))
    .option('--columns <list>', 'only these columns, in this order: labels, names, IDs or keys, comma-separated ("quote,d" if needed)')
    .option('--no-meta', 'leave out _id, _createdAt, _updatedAt and _createdByUserId')
    .option('--no-system', 'leave out the columns the service adds itself')
    .addOption(new Option('--cells <kind>', 'each cell as its value, or as the whole Cell object').choices(CELLS_MODES).default('value'))
    .option(
      '--status-columns',
      'add <key>.status and <key>.error after each column that carries a run status or error (parquet: always, for action columns)',
    )
    .option('--join <sep>', 'CSV/TSV: join arrays of plain values with SEP instead of writing JSON')
    .option('--bom', 'CSV/TSV: start with a UTF-8 byte order mark')
    .option(
      '--excel [locale]',
      `CSV/TSV for spreadsheet programs: BOM, CRLF, cells cut at ${withCommas(SPREADSHEET_CELL_MAX_CHARS)} characters, formula guard, lists as "a, b", members by name; --excel eu: ; between fields and a decimal comma (Excel in most of Europe)`,
    )
    .option('--delimiter <char>', 'CSV: the field separator instead of , (e.g. ;)')
    .option('--safe-formulas', "CSV/TSV: a text cell starting with = + - @ tab or CR gets a leading '")
    .addOption(
      new Option('--on-truncated <action>', 'cells the service cut at 200 characters: warn at the end, or exit 8')
        .choices(['warn', 'error'])
        .default('warn'),
    )
    .option('--resume', 'continue the interrupted export to -o FILE from its checkpoint')
    .option('--restart', 'drop the checkpoint of an interrupted export to -o FILE and start over');
}

/** 32767 → `32,767`, as toLocaleString('en-US') writes it, without loading the locale data (start-up: every command's help is built). */
function withCommas(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+$)/g, ',');
}
