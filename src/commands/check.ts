// `tds check`: contracts and health checks over the mirror, after an incremental sync of their tables
// (--no-sync: the mirror as it is); its action is in check-action.ts.

import { Command, Option } from 'commander';
import type { Context } from '../core/options.js';
import type { CheckOptions } from './check-action.js';
import { SUMMARIES } from './summaries.js';

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
    .description(SUMMARIES.check.description)
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
      const { checkAction } = await import('./check-action.js');
      await checkAction(ctx, file, options, command);
    });
}
