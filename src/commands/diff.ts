// `tds diff` (options and help): what changed in a mirrored table between two moments; diff-action.ts runs it.

import { Command, Option } from 'commander';
import type { Context } from '../core/options.js';
import { OUTPUT_FORMATS } from '../output/options.js';
import type { DiffOptions } from './diff-action.js';
import { SUMMARIES } from './summaries.js';

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
    .description(SUMMARIES.diff.description)
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
      const { diffAction } = await import('./diff-action.js');
      await diffAction(ctx, table, options, command);
    });
}
