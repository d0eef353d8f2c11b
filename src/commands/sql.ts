// The mirror's read commands: `tds sql` and `tds diff` (options and help); sql-action.ts runs them.

import { Command, Option } from 'commander';
import type { Context } from '../core/context.js';
import { OUTPUT_FORMATS } from '../output/format.js';
import type { DiffOptions, SqlOptions } from './sql-action.js';

const SQL_HELP = `
The mirror (made by \`tds sync\`) holds one table per service table, named in lower snake case
(leads, edge_cases, …), plus _tds_tables (which is which), _tds_columns and _tds_syncs. Column keys
are the export's (labels by default): quote those with spaces or capitals, "Last Contacted".

Output: a table on a terminal (at most 1,000 rows shown), CSV otherwise; --format and -o FILE as
for \`tds rows\`; -o FILE.parquet (or --format parquet with -o) has DuckDB write the result itself.
The mirror is opened read-only unless --write. The statement reaches no file unless --files (no
COPY … TO, read_csv, EXPORT DATABASE, ATTACH, INSTALL or LOAD): DuckDB enforces it. -o FILE is
written by tds and needs no --files. A SQL error exits 2 with DuckDB's message; Ctrl-C interrupts
the statement (exit 130).

Examples:
  $ tds sql "SELECT Stage, count(*) AS n FROM leads GROUP BY Stage ORDER BY n DESC"
  $ tds sql "SELECT * FROM leads WHERE \\"Enrich.status\\" = 'failed'" --format ndjson | jq .Name
  $ tds sql "SELECT * FROM leads" -o leads.parquet
  $ echo "SELECT count(*) FROM signups" | tds sql -
  $ tds sql "CREATE VIEW won AS SELECT * FROM leads WHERE Stage = 'Closed Won'" --write
  $ tds sql "EXPORT DATABASE 'backup' (FORMAT parquet)" --files   # every table to Parquet
  # every mirrored table to Parquet, one file each (a backup in one line):
  $ tds sql "SELECT mirror_table FROM _tds_tables" --format csv | tail -n +2 | xargs -I{} tds sql "SELECT * FROM {}" -o {}.parquet`;

export function sqlCommand(ctx: Context): Command {
  return new Command('sql')
    .description('run one SQL statement (DuckDB) against the local mirror, printed like an export or written to a file')
    .argument('[query]', 'the statement, or - to read it from stdin')
    .option('--db <file>', 'the mirror file (default: TDS_DB, the `db` setting, or tds.duckdb here)')
    .addOption(
      new Option('--format <format>', 'output format (default: table on a terminal, csv otherwise)').choices([
        ...OUTPUT_FORMATS,
        'parquet',
      ]),
    )
    .option('-o, --output <file>', 'write the result to FILE (atomically); the format follows its extension, .parquet included')
    .option('--write', 'open the mirror for writing (CREATE VIEW, UPDATE …); read-only otherwise')
    .option('--files', 'give the statement your own file access (COPY … TO, read_csv, EXPORT DATABASE); none otherwise')
    .addHelpText('after', SQL_HELP)
    .action(async (query: string | undefined, options: SqlOptions, command: Command) => {
      const { sqlAction } = await import('./sql-action.js');
      await sqlAction(ctx, query, options, command);
    });
}

const DIFF_HELP = `
Compares a mirrored table at two moments, from the mirror alone (no request to the service): every
version a sync wrote is kept (T__history beside each mirror table T). WHEN is
  sync:N       after the sync whose sync_id is N (see _tds_syncs); sync:-1 after the table's last
               sync, sync:-2 the one before
  ISO time     2026-03-01T12:00:00Z: the table as the service had it then (as far as syncs saw it)
  duration     90m, 2h, 3d: that long ago
Default: --since sync:-2 --until now, i.e. what the last sync brought.

One record per row that differs: change (added, updated, deleted), _id, before and after (keyed like
an export; for updated only the keys whose values differ). NDJSON/JSON one record a line or an
array; CSV/TSV and the terminal table one line per changed value: change,_id,key,before,after.
--summary: counts per change and, per key, its value transitions (Enrich.status: queued → success 97).

Examples:
  $ tds diff leads                               # what the last sync brought
  $ tds diff leads --since 1d --summary           # the last day in short
  $ tds diff leads --since sync:12 --until sync:15 --format ndjson | jq 'select(.change == "deleted")'
  $ tds diff Leads --since 2026-03-01T00:00:00Z -o march.csv`;

export function diffCommand(ctx: Context): Command {
  return new Command('diff')
    .description('what changed in a mirrored table between two moments (from the mirror; see `tds sync`)')
    .argument('<table>', 'the table: its ID or exact name, or its mirror table name')
    .option('--since <when>', 'from this moment: sync:N, sync:-2, an ISO time or a duration ago (default sync:-2)')
    .option('--until <when>', 'to this moment, as --since (default now)')
    .option('--summary', 'counts per change and the value transitions per key, instead of the records')
    .option('--db <file>', 'the mirror file (default: TDS_DB, the `db` setting, or tds.duckdb here)')
    .addOption(
      new Option('--format <format>', 'output format (default: table on a terminal, ndjson otherwise)').choices([...OUTPUT_FORMATS]),
    )
    .option('-o, --output <file>', 'write to FILE (atomically); the format follows its extension')
    .addHelpText('after', DIFF_HELP)
    .action(async (table: string, options: DiffOptions, command: Command) => {
      const { diffAction } = await import('./sql-action.js');
      await diffAction(ctx, table, options, command);
    });
}
