// The service's listings: `tds workspaces`, `tds tables` and `tds schema` (options and help); their
// actions are in listings-action.ts, loaded only when one runs.

import { Command, Option } from 'commander';
import type { Context } from '../core/options.js';
import { type ExportFormat, EXPORT_FORMATS } from '../output/options.js';
import type { TablesOptions } from './listings-action.js';
import { SUMMARIES } from './summaries.js';

export function workspacesCommand(ctx: Context): Command {
  const command = new Command('workspaces').description(SUMMARIES.workspaces.description).addHelpText(
    'after',
    `
Examples:
  $ tds workspaces
  $ tds workspaces --format json | jq -r '.[].name'
  $ tds workspaces -o workspaces.csv`,
  );
  addOutputOptions(command).action(async (options: { format?: ExportFormat; output?: string }, cmd: Command) => {
    const { workspacesAction } = await import('./listings-action.js');
    await workspacesAction(ctx, options, cmd);
  });
  return command;
}

export function tablesCommand(ctx: Context): Command {
  const command = new Command('tables')
    .description(SUMMARIES.tables.description)
    .option('-w, --workspace <id|name>', 'only the tables of this workspace (its ID or exact name)')
    .addHelpText(
      'after',
      `
Examples:
  $ tds tables
  $ tds tables --workspace Sales
  $ tds tables --format ndjson -o tables.ndjson`,
    );
  addOutputOptions(command).action(async (options: TablesOptions, cmd: Command) => {
    const { tablesAction } = await import('./listings-action.js');
    await tablesAction(ctx, options, cmd);
  });
  return command;
}

export function schemaCommand(ctx: Context): Command {
  const command = new Command('schema')
    .description(SUMMARIES.schema.description)
    .argument('<table>', 'table ID or exact table name')
    .addHelpText(
      'after',
      `
A label marked * is shared by several columns; refer to those by ID or name.

Examples:
  $ tds schema Leads
  $ tds schema tbl_8f2k --format json
  $ tds schema "Edge Cases" -o columns.csv`,
    );
  addOutputOptions(command).action(async (ref: string, options: { format?: ExportFormat; output?: string }, cmd: Command) => {
    const { schemaAction } = await import('./listings-action.js');
    await schemaAction(ctx, ref, options, cmd);
  });
  return command;
}

/** `--format` and `-o FILE`, for commands that write data. */
export function addOutputOptions(command: Command): Command {
  return command
    .addOption(new Option('--format <format>', 'output format').choices(EXPORT_FORMATS))
    .option('-o, --output <file>', 'write data to FILE (atomically); the format follows its extension');
}
