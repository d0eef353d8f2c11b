// The root command, `tds`: its options and examples, and how every command's help and errors are written
// (wrapped at the terminal's width, in tds's form). program.ts builds the whole tree on it; a run that names
// one command (`tds mcp`, `tds sql …`) gets a program of the root and that command alone (programFor), so
// it loads no other command's definition.

import { Command, Help, Option } from 'commander';
import { parseIntegerOption, parseNumberOption, TDS_VERSION, type Context } from '../core/options.js';
import { SUMMARIES } from './summaries.js';

const ROOT_EXAMPLES = `
Examples:
  $ tds tables
  $ tds rows Leads -o leads.csv
  $ tds query Leads --where 'Stage = "Closed Won"' --format table
  $ tds sync Leads && tds sql "SELECT Stage, count(*) FROM leads GROUP BY Stage"
  $ tds push @leads people.csv --key email --table Leads --skip-existing

new here? run \`tds demo\` (a guided tour on a local emulator)`;

/** `tds` with its global options, without commands: program.ts adds them, then `finishProgram`. */
export function rootCommand(): Command {
  return new Command('tds')
    .description('Command-line client for the table data service: list, export, query and push rows.')
    .version(TDS_VERSION, '-V, --version')
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
    .option('--no-color', 'no colour in output (NO_COLOR is honoured too)')
    .addHelpText('after', ROOT_EXAMPLES);
}

/** The program once its commands are added: every command's help and errors written as tds writes them. */
export function finishProgram(program: Command, ctx: Context): Command {
  const width = helpWidth(ctx.io);
  applyEverywhere(program, (command) =>
    command
      .exitOverride()
      .configureHelp({ helpWidth: width, optionDescription: withoutEmptyDefault })
      .configureOutput({
        writeOut: (text) => ctx.io.stdout.write(wrapHelp(text, width)),
        writeErr: (text) => ctx.io.stderr.write(text),
        outputError: (text, write) => write(commanderError(text, command)),
        getOutHelpWidth: () => width,
        getErrHelpWidth: () => width,
      }),
  );
  return program;
}

/**
 * Each command's definition, by name, loaded when asked for: a run that names a command builds it alone.
 * The whole tree (program.ts) holds the same commands (a test compares them).
 */
const DEFINITIONS: Record<string, () => Promise<(ctx: Context) => Command>> = {
  workspaces: async () => (await import('./listings.js')).workspacesCommand,
  tables: async () => (await import('./listings.js')).tablesCommand,
  schema: async () => (await import('./listings.js')).schemaCommand,
  rows: async () => (await import('./export.js')).rowsCommand,
  query: async () => (await import('./export.js')).queryCommand,
  push: async () => (await import('./push.js')).pushCommand,
  webhooks: async () => (await import('./webhooks.js')).webhooksCommand,
  sync: async () => (await import('./sync.js')).syncCommand,
  sql: async () => (await import('./sql.js')).sqlCommand,
  stats: async () => (await import('./stats.js')).statsCommand,
  check: async () => (await import('./check.js')).checkCommand,
  mcp: async () => (await import('./mcp.js')).mcpCommand,
  diff: async () => (await import('./diff.js')).diffCommand,
  lake: async () => (await import('./lake.js')).lakeCommand,
  emulator: async () => (await import('./emulator.js')).emulatorCommand,
  demo: async () => (await import('./demo.js')).demoCommand,
  config: async () => (await import('./config.js')).configCommand,
  auth: async () => (await import('./auth.js')).authCommand,
};

/** The names of the commands a run may build alone (`completion` lists the whole tree; an alias goes through the tree). */
export const SINGLE_COMMANDS: readonly string[] = Object.keys(DEFINITIONS);

/**
 * The program for `argv` when it names one command before any help flag (`tds --profile p mcp …`): the root
 * and that command, which parse and help exactly as in the whole tree; undefined when the run needs the
 * tree (no command, an unknown one or an alias, `tds --help …`, `tds help …`, `tds completion`).
 */
export async function programFor(ctx: Context, argv: readonly string[]): Promise<Command | undefined> {
  const root = rootCommand();
  const name = commandNamed(root, argv);
  const definition = name === undefined ? undefined : DEFINITIONS[name];
  if (!definition) return undefined;
  root.addCommand((await definition())(ctx));
  return finishProgram(root, ctx);
}

/** The first operand of `argv`, past the root's options and their values; undefined at a help flag, `--` or an unknown option. */
function commandNamed(root: Command, argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i]!;
    if (!arg.startsWith('-')) return arg;
    if (arg === '--') return undefined;
    const flag = arg.includes('=') && arg.startsWith('--') ? arg.slice(0, arg.indexOf('=')) : arg;
    const option = root.options.find((known) => known.long === flag || known.short === flag);
    // help, version and anything unknown: the tree answers as it always has
    if (!option || option.long === '--version') return undefined;
    if ((option.required || option.optional) && flag === arg) i += 1;
  }
  return undefined;
}

/** The runs that only print the top-level help: `tds`, `tds --help`, `tds -h`. */
export function onlyTopLevelHelp(argv: readonly string[]): boolean {
  return argv.length === 0 || (argv.length === 1 && (argv[0] === '--help' || argv[0] === '-h'));
}

/**
 * The program of the top-level help: the root with each command by its line of that help alone (summaries.ts),
 * so `tds --help` loads no command's definition. It writes what the whole tree writes (a test compares them).
 */
export function helpProgram(ctx: Context): Command {
  const root = rootCommand();
  for (const [name, { description }] of Object.entries(SUMMARIES)) root.addCommand(new Command(name).description(description));
  finishProgram(root, ctx);
  const summaries: Partial<Record<string, { term: string }>> = SUMMARIES;
  return root.configureHelp({
    ...root.configureHelp(),
    // commander's own `help [command]` keeps its term
    subcommandTerm(this: Help, command: Command): string {
      return summaries[command.name()]?.term ?? Help.prototype.subcommandTerm.call(this, command);
    },
  });
}

/** Help is wrapped at the terminal's width; not on a terminal, at COLUMNS or 80. */
function helpWidth(io: Context['io']): number {
  return io.stdoutIsTTY ? io.terminalWidth : Number(io.env.COLUMNS) || 80;
}

/** An option's description without commander's `(default: [])` of a repeatable option. */
function withoutEmptyDefault(this: Help, option: Option): string {
  const empty = Array.isArray(option.defaultValue) && option.defaultValue.length === 0;
  const shown = empty
    ? Object.assign(Object.create(Object.getPrototypeOf(option) as object) as Option, option, { defaultValue: undefined })
    : option;
  return Help.prototype.optionDescription.call(this, shown);
}

/**
 * The help's own text (descriptions, examples) wrapped at `width` by words, a continued line indented as
 * its first; an example too long with its comment gets the comment on a line of its own above it (a
 * command is never cut: it has to stay copyable).
 */
export function wrapHelp(text: string, width: number): string {
  // commander's own part (usage, arguments, options) is laid out already; the text after it is prose
  const own = text.startsWith('Usage:') ? text : flowParagraphs(text);
  return own
    .split('\n')
    .flatMap((line) => {
      if (line.length <= width) return [line];
      const example = /^(\s*)(\$ .*?)\s+(# .*)$/.exec(line);
      if (example) return [...wrapWords(`${example[1]}${example[3]}`, width), `${example[1]}${example[2]}`];
      if (/^\s*\$ /.test(line)) return [line];
      return wrapWords(line, width);
    })
    .join('\n');
}

/**
 * The lines of each paragraph of the help's own text joined, so that it is wrapped once at the width:
 * a paragraph is a run of lines that start at the margin. Indented lines (examples, code) and headings
 * (`Examples:`) stay as written.
 */
function flowParagraphs(text: string): string {
  const lines: string[] = [];
  for (const line of text.split('\n')) {
    const previous = lines[lines.length - 1];
    if (isProse(line) && previous !== undefined && isProse(previous) && !isHeading(previous)) {
      lines[lines.length - 1] = `${previous} ${line}`;
    } else lines.push(line);
  }
  return lines.join('\n');
}

const isProse = (line: string): boolean => line.trim() !== '' && !/^\s/.test(line);
const isHeading = (line: string): boolean => /^[A-Z][A-Za-z ]{0,30}:$/.test(line);

function wrapWords(line: string, width: number): string[] {
  const indent = /^\s*(?:[-*] |# )?/.exec(line)![0].replace(/\S/g, ' ');
  const lines: string[] = [];
  let current = '';
  for (const word of line.trim().split(/\s+/)) {
    const next =
      current === ''
        ? `${lines.length === 0 ? line.slice(0, line.length - line.trimStart().length) : indent}${word}`
        : `${current} ${word}`;
    if (current !== '' && next.length > width) {
      lines.push(current);
      current = `${indent}${word}`;
    } else current = next;
  }
  return [...lines, current];
}

/** commander's own errors (a missing argument, an unknown option) in tds's form: `tds: …` and a hint. */
function commanderError(text: string, command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at; at = at.parent) names.unshift(at.name());
  const [first = '', ...rest] = text.trim().split('\n');
  const suggestion = rest.map((line) => /^\(Did you mean (.*)\?\)$/.exec(line.trim())?.[1]).find(Boolean);
  const usage = `run \`${names.join(' ')} --help\` for usage`;
  return `tds: ${first.replace(/^error: /, '')}\nhint: ${suggestion ? `did you mean ${suggestion}; ` : ''}${usage}\n`;
}

/** Commands added with addCommand() do not inherit settings: apply them to the whole tree. */
function applyEverywhere(command: Command, apply: (command: Command) => void): void {
  apply(command);
  for (const sub of command.commands) applyEverywhere(sub, apply);
}
