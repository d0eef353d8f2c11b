import { Command, Option } from 'commander';
import { createRequire } from 'node:module';
import type { Context } from './core/context.js';
import { parseIntegerOption, parseNumberOption } from './core/number-option.js';
import { workspacesCommand } from './commands/workspaces.js';
import { tablesCommand } from './commands/tables.js';
import { schemaCommand } from './commands/schema.js';
import { rowsCommand } from './commands/rows.js';
import { queryCommand } from './commands/query.js';
import { pushCommand } from './commands/push.js';
import { emulatorCommand } from './commands/emulator.js';
import { demoCommand } from './commands/demo.js';
import { configCommand } from './commands/config.js';
import { authCommand } from './commands/auth.js';
import { completionCommand } from './commands/completion.js';
import { sqlCommand } from './commands/sql.js';
import { syncCommand } from './commands/sync.js';
import { statsCommand } from './commands/stats.js';
import { mcpCommand } from './commands/mcp.js';
import { diffCommand } from './commands/diff.js';
import { lakeCommand } from './commands/lake.js';

const { version } = createRequire(import.meta.url)('../package.json') as { version: string };

export function buildProgram(ctx: Context): Command {
  const program = new Command('tds')
    .description('Command-line client for the table data service: list, export, query and push rows.')
    .version(version, '-V, --version')
    .addOption(new Option('--base-url <url>', 'service base URL, ending in /v1').env('TDS_BASE_URL'))
    .option('--api-key-file <path>', 'read the API key from PATH (- for stdin); or set TDS_API_KEY')
    .addOption(new Option('--profile <name>', 'named profile from the config file').env('TDS_PROFILE'))
    .option('--max-retries <n>', 'retries of a failed read before giving up', parseIntegerOption('--max-retries', 0, 20))
    .addOption(
      new Option('--timeout <seconds>', 'connect and stalled-response timeout (default 30)')
        .env('TDS_TIMEOUT')
        .argParser(parseNumberOption('--timeout', 0.1, 3600)),
    )
    .option('-v, --verbose', 'log each request (method, path, status, time) on stderr; secrets redacted')
    .option('--no-color', 'no colour in output (NO_COLOR is honoured too)');

  // Command definitions are light: each action imports its implementation, so a run loads only its own modules.
  for (const make of [
    workspacesCommand,
    tablesCommand,
    schemaCommand,
    rowsCommand,
    queryCommand,
    pushCommand,
    syncCommand,
    sqlCommand,
    statsCommand,
    mcpCommand,
    diffCommand,
    lakeCommand,
    emulatorCommand,
    demoCommand,
    configCommand,
    authCommand,
    completionCommand,
  ]) {
    program.addCommand(make(ctx));
  }
  applyEverywhere(program, (command) =>
    command
      .exitOverride()
      .showHelpAfterError('(run with --help for usage)')
      .configureOutput({
        writeOut: (text) => ctx.io.stdout.write(text),
        writeErr: (text) => ctx.io.stderr.write(text),
      }),
  );
  return program;
}

/** Commands added with addCommand() do not inherit settings: apply them to the whole tree. */
function applyEverywhere(command: Command, apply: (command: Command) => void): void {
  apply(command);
  for (const sub of command.commands) applyEverywhere(sub, apply);
}
