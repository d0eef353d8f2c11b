// Figures over the mirror, each after an incremental sync of its tables (--no-sync: the mirror as it is):
// `tds stats` (a table's profile) and `tds check` (contracts and health checks); their actions are in
// stats-action.ts.

import { Command, Option } from 'commander';
import type { Context } from '../core/context.js';
import { parseIntegerOption } from '../core/number-option.js';
import type { StatsOptions, CheckOptions } from './stats-action.js';

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
    .description("a table's profile from the mirror: fill, values, run states, failure causes; an HTML report with -o FILE.html")
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

const CHECK_HELP = `
Evaluates the checks of FILE (default: the \`checks\` setting, else tds-checks.yaml here) over the
mirror, after syncing their tables (incrementally, as tds stats does; --no-sync uses the mirror as it
is; a mirror that tds sync --follow keeps is checked as it is). Every figure is computed by DuckDB
over the mirror. Exit 9 when a check fails or cannot be evaluated (error); 0 when every check passes
or warns. A share is written 0.05 or 5%.

The file (YAML): per table, an optional schema contract and a list of checks, each fail (default)
or warn (severity: warn):

  tables:
    Leads:
      schema:                        # these fields, these types
        fields: {Email: email, Lead score: number, Enrich: action}
        on_drift: fail               # or warn: a field added, removed, relabelled or retyped
      checks:
        - rows: {min: 100, max: 45000}
        - fill: {column: Email, min: 0.95}
        - unique: Email
        - accepted: {column: Stage, values: [New, Qualified, Closed Won]}
        - failure_rate: {column: Enrich, max: 0.2, since: 7d}
        - stuck: {column: Enrich, max_age: 2h}     # queued, waiting or running longer
        - activity: {max_quiet: 1d}                # the newest row is at most this old
        - fresh: {max_age: 1h}                     # the last complete pass (verified_at)
        - stale: {}                                # verified_at within its follower's --max-stale
        - sql: {name: owners, query: "SELECT _id FROM leads WHERE Owner IS NULL", max: 0, timeout: 1m}
          severity: warn

Ages, spans and stuck cells are measured on the service's clock (the Date of its answers while the
tables sync; with --no-sync, this machine's). A sql check runs read-only, without file access, as
tds sql does; its rows are the faults; one still running at its timeout (default 30s) is stopped, an
error. Each run is kept in the mirror's _tds_checks table.

Output: a table grouped by table on a terminal, JSON (an array of results) otherwise, or JUnit XML
(--format junit) for CI; -o FILE writes atomically (.xml is junit, .json json, .txt the table).
--notify URL|@NAME posts one JSON message ({"text": …, "changes": […]}: a Slack or Teams incoming
webhook takes it as it is) when some check changed status since a receiver last answered 2xx, and
nothing otherwise. A POST that reached the receiver is not sent again in the run (10 s a try); what no
receiver took is sent by the next run. The URL is a secret: save it with \`tds config set notify.NAME\`
and give @NAME.

Examples:
  $ tds check
  $ tds check checks.yaml --no-sync --format json | jq '.[] | select(.status != "pass")'
  $ tds check --format junit -o checks.xml                  # CI: one test case per check
  $ tds config set notify.team && tds check --notify @team  # cron: a message when something changes
  $ tds sql 'SELECT time, "check", status, observed FROM _tds_checks ORDER BY run DESC LIMIT 20'`;

export function checkCommand(ctx: Context): Command {
  return new Command('check')
    .description('contracts and health checks over the mirror, for cron, CI and agents: exit 9 when one fails')
    .argument('[file]', 'the checks file (default: the `checks` setting, else tds-checks.yaml)')
    .option('--db <file>', 'the mirror file (default: TDS_DB, the `db` setting, or tds.duckdb here)')
    .option('--no-sync', 'use the mirror as it is (no request to the service)')
    .addOption(
      new Option('--format <format>', 'output format (default: table on a terminal, json otherwise)').choices(['table', 'json', 'junit']),
    )
    .option('-o, --output <file>', 'write to FILE (atomically), in the format of its extension (.xml .json .txt)')
    .option('--notify <url|@name>', 'post a JSON message when some check changed status since the last run (a secret: prefer @NAME)')
    .addHelpText('after', CHECK_HELP)
    .action(async (file: string | undefined, options: CheckOptions, command: Command) => {
      const { checkAction } = await import('./stats-action.js');
      await checkAction(ctx, file, options, command);
    });
}
