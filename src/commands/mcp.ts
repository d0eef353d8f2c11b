import { Command } from 'commander';
import { type Context, parseIntegerOption } from '../core/options.js';
import type { McpFlags } from './mcp-action.js';
import { SUMMARIES } from './summaries.js';

const HELP = `
Serves the Model Context Protocol on stdin and stdout for an agent (Claude Desktop, Claude Code,
Cursor, any MCP client), which starts it as a child process. stdout carries protocol messages only;
logs go to stderr. The base URL and API key come from the environment or the profile, as for every
command (not --api-key-file -: stdin is the protocol's).

Tools: list_tables, describe_table, query_sql (one read-only statement over the mirror, no file,
extension or other database), table_stats, diff_table, sync_tables, search_rows (live rows through
the --where language), check_tables and, only with --allow-push, push_records (push by key into a
saved @NAME webhook). A result holds at most --max-rows rows and --max-bytes of text; a cut one says
truncated: true with the full row count. A failure is a tool result with the command line's message.

A client starts the server in a folder of its own choosing: give the mirror (--db, TDS_DB, config db) and
the checks file (--checks, TDS_CHECKS, config checks) as absolute paths. Both are made absolute at start
and logged on stderr.

Configuration of a client (Claude Desktop's claude_desktop_config.json, Cursor's .cursor/mcp.json):
  {"mcpServers": {"tds": {"command": "npx", "args": ["tds", "mcp"], "env": {
    "TDS_BASE_URL": "https://…/v1", "TDS_API_KEY": "…",
    "TDS_DB": "/home/me/tds/tds.duckdb", "TDS_CHECKS": "/home/me/tds/tds-checks.yaml"}}}}

Examples:
  $ tds mcp --db ~/data/tds.duckdb --checks ~/data/tds-checks.yaml
  $ claude mcp add tds -- npx tds mcp --max-rows 200
  $ tds mcp --allow-push         # agents may push records into webhooks saved with tds config set webhook.NAME`;

export function mcpCommand(ctx: Context): Command {
  return new Command('mcp')
    .description(SUMMARIES.mcp.description)
    .option('--db <file>', 'the mirror file (default: TDS_DB, the `db` setting, or tds.duckdb here)')
    .option('--checks <file>', "check_tables's checks file (default: TDS_CHECKS, the `checks` setting, or tds-checks.yaml here)")
    .option('--allow-push', 'add the push_records tool (push by key into webhooks saved with `tds config set webhook.NAME`)')
    .option('--max-rows <n>', 'rows a result holds at most, 1-1000 (default 100)', parseIntegerOption('--max-rows', 1, 1000))
    .option(
      '--max-bytes <n>',
      'text a result holds at most, in bytes (default 50,000)',
      parseIntegerOption('--max-bytes', 1000, 10_000_000),
    )
    .addHelpText('after', HELP)
    .action(async (options: McpFlags, command: Command) => {
      const { mcpAction } = await import('./mcp-action.js');
      await mcpAction(ctx, options, command);
    });
}
