// `tds sync`: the mirror's writer (with --lake, the Parquet lake beside it; with --check, the checks after
// each round); its action is in sync-action.ts.

import { Command, Option } from 'commander';
import { type Context, parseNumberOption, parseShareOption } from '../core/options.js';
import { HEADER_MODES } from '../records/options.js';
import type { SyncOptions } from './sync-action.js';
import { SUMMARIES } from './summaries.js';

const HELP = `
The mirror is a DuckDB file: one table per service table (named from the table's name in lower
snake case: "🚀 Leads" → leads), with _id, _createdAt, _updatedAt, _createdByUserId, one typed
column per field (keys as in exports), <key>.status and <key>.error after each action column, and
_truncated, and _syncId (the sync that wrote the row's version); _tds_tables, _tds_columns and
_tds_syncs describe it. Query it with \`tds sql\`.

Nothing the service changes or deletes is lost: a version a sync replaces (another _updatedAt) or a
pass finds gone moves into T__history beside the table; T_at_sync(N) and T_at(MOMENT) give the
table as it was, and \`tds diff TABLE\` what changed between two moments. --changes prints what each
sync changed (NDJSON diff records) on stdout, every change at least once: what an earlier run
committed and did not deliver (a closed pipe, a kill) comes first, a repeat named by its syncId and
_id; --prune-history 30d drops versions replaced before.

The first sync of a table, and --full, read every row and delete from the mirror the rows the
service no longer has. Later syncs are incremental: unfiltered rows come newest first, so a sync
reads from the newest row down to its watermark (the start of the last sync on the service's clock,
or the oldest row whose action cells were still running, less a minute): the cost is the rows
created since, not the table. A mirror still short of the service's row count there reads further
back. Schema changes (added, relabelled, removed, retyped fields) are
applied first, each said in one line. Every group of pages is written in one transaction with the
table's progress: after Ctrl-C (exit 130), a crash or a failure the mirror is consistent and the
next sync continues where this one stopped.

Freshness: an incremental pass cannot see edits of older rows, re-runs or deletions, so the mirror
checks itself. A sync whose mirror holds more rows than the service lists reads every row (rows
were deleted); a table verified (read whole) longer ago than --max-stale (default 24h; config key
max-stale; off) gets a full pass; _tds_tables.verified_at says when. With --follow, each round reads
the table listing once and no row of a table whose row count did not move (nor, while verification
needs the whole share, of one whose count only fell: verification finds the deletions), and between
rounds it re-reads every table page by page with --max-share (default 0.5) of the 60-a-minute
row-read limit, so every change is in the mirror and --changes within --max-stale (default 1h with
--follow): P pages at share s take P / (60 * s) minutes (20,000 rows = 200 pages at 0.5: 6.7 min).
A followed mirror stays readable: tds sql, stats, diff and mcp wait for the moment a write takes.
SIGTERM is handled as Ctrl-C (exit 143).

Examples:
  $ tds sync Leads                       # first time: every row; then only what changed
  $ tds sync --workspace Sales --db sales.duckdb
  $ tds sync                             # every table already in the mirror
  $ tds sync --all --full                # the whole organization, deletions included
  $ tds sync Leads --follow --every 30   # keep the mirror current until Ctrl-C
  $ tds sync --follow --changes | jq -c 'select(.change == "deleted")'
  $ tds sync --follow --max-stale 30m --max-share 0.3   # exact within 30 min, 30% of the limit
  $ tds sync --max-stale off             # one-shot, never a full pass for staleness
  $ tds sync Leads --follow --check tds-checks.yaml --notify @team   # checks after each round that changed Leads
  $ tds sync --all --follow --lake ./lake # the changes as Parquet for Spark, Trino, BigQuery, DuckDB
  $ tds sql "SELECT Stage, count(*) FROM leads GROUP BY Stage"`;

export function syncCommand(ctx: Context): Command {
  return new Command('sync')
    .description(SUMMARIES.sync.description)
    .argument('[tables...]', 'table IDs or exact names (default: the tables already in the mirror)')
    .option('-w, --workspace <id|name>', 'add every table of this workspace (repeatable)', collect, [])
    .option('--all', 'every table of the organization')
    .option('--db <file>', 'the mirror file (default: TDS_DB, the `db` setting, or tds.duckdb here)')
    .option('--full', 'read every row: rows changed anywhere are updated, rows gone are deleted')
    .option('--follow', 'after catching up, sync again every --every seconds until Ctrl-C')
    .option('--every <seconds>', 'seconds between syncs of --follow (default 10)', parseNumberOption('--every', 0.05, 86_400))
    .addOption(
      new Option('--header <kind>', 'column keys of new mirror tables: labels, names or IDs (default label)').choices(HEADER_MODES),
    )
    .option('--json', 'print the summary as JSON on stdout')
    .option('--changes', "print what each table's sync changed on stdout, as NDJSON diff records (summaries stay on stderr)")
    .option(
      '--max-stale <duration>',
      'a table verified longer ago gets a full pass; with --follow, the bound of verification (default 24h, 1h with --follow; off)',
    )
    .option(
      '--max-share <share>',
      'with --follow: the share of the row-read limit that verification may use (above 0, up to 1 or 100%; default 0.5)',
      parseShareOption('--max-share'),
    )
    .option('--lake <dir>', "also write what each table's sync changed to DIR as Parquet (Hive partitions; see `tds lake`)")
    .option(
      '--check <file>',
      'after each round, run the checks of FILE (see tds check) for the tables it changed; the summary says how many fail',
    )
    .option('--notify <url|@name>', 'with --check: post a JSON message when some check changed status (see tds check --notify)')
    .option('--prune-history <duration>', 'drop the versions replaced longer ago than DURATION (30d, 12h) from the history tables')
    .addHelpText('after', HELP)
    .action(async (tables: string[], options: SyncOptions, command: Command) => {
      const { syncAction } = await import('./sync-action.js');
      await syncAction(ctx, tables, options, command);
    });
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}
