// `tds sql` (options and help): one SQL statement against the mirror; sql-action.ts runs it.

import { Command, Option } from 'commander';
import type { Context } from '../core/options.js';
import { OUTPUT_FORMATS } from '../output/options.js';
import type { SqlOptions } from './sql-action.js';
import { SUMMARIES } from './summaries.js';

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
    .description(SUMMARIES.sql.description)
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
