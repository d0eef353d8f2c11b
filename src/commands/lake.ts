// `tds lake` (compact, check) for the Parquet lake that `tds sync --lake` writes beside the mirror; its
// actions are in lake-action.ts.

import { Command } from 'commander';
import type { Context } from '../core/options.js';
import type { LakeCheckOptions, LakeCompactOptions } from './lake-action.js';
import { SUMMARIES } from './summaries.js';

const LAKE_HELP = `
The lake is the folder that \`tds sync --lake DIR\` (config key \`lake\`) writes: for each mirror table,
DIR/<table>/changes/sync_id=<N>/part-*.parquet with every version sync N wrote (the mirror's columns,
_change and _valid_from), in Hive partitions that Spark, Trino, BigQuery, Athena and DuckDB read
without tds. DIR/<table>/README.md gives the SQL for "now" and "as of" in each.

Examples:
  $ tds sync --all --follow --lake ./lake
  $ tds lake compact ./lake leads --drop-changes   # one snapshot partition; older changes removed
  $ tds lake check ./lake                          # the lake read back and compared with the mirror
  $ duckdb -c "SELECT count(*) FROM read_parquet('lake/leads/changes/*/*.parquet', hive_partitioning = true, union_by_name = true)"`;

export function lakeCommand(ctx: Context): Command {
  const lake = new Command('lake').description(SUMMARIES.lake.description).addHelpText('after', LAKE_HELP);
  lake
    .command('compact')
    .description("rewrite tables' changes into one snapshot partition (snapshot/as_of=<sync>) with _valid_from and _valid_to")
    .argument('<dir>', 'the lake folder')
    .argument('[tables...]', 'table folders in the lake (default: every one)')
    .option('--drop-changes', 'remove the change partitions the snapshot holds (says how much space that frees)')
    .addHelpText('after', '\nExample:\n  $ tds lake compact ./lake leads --drop-changes')
    .action(async (dir: string, tables: string[], options: LakeCompactOptions) => {
      const { lakeCompactAction } = await import('./lake-action.js');
      await lakeCompactAction(ctx, dir, tables, options);
    });
  lake
    .command('check')
    .description('read the lake back and compare each table with the mirror (row counts and a checksum of the values)')
    .argument('<dir>', 'the lake folder')
    .option('--db <file>', 'the mirror file (default: TDS_DB, the `db` setting, or tds.duckdb here)')
    .option('--json', 'print the comparison as JSON on stdout')
    .addHelpText(
      'after',
      '\nExit status 9 when a table differs, or a partition lacks its _SUCCESS or holds a file that is not Parquet.\nA mirrored table never synced with --lake to this folder is named and not compared.\n\nExample:\n  $ tds lake check ./lake --db tds.duckdb',
    )
    .action(async (dir: string, options: LakeCheckOptions, command: Command) => {
      const { lakeCheckAction } = await import('./lake-action.js');
      await lakeCheckAction(ctx, dir, options, command);
    });
  return lake;
}
