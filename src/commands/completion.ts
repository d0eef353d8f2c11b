import { Argument, Command } from 'commander';
import type { Context } from '../core/options.js';
import { SUMMARIES } from './summaries.js';

// `tds completion bash|zsh|fish`: scripts generated from the program itself, so they never drift.

interface CommandWords {
  /** The command's name and its aliases (`auth`, `doctor`). */
  names: string[];
  description: string;
  options: string[];
  /** Subcommands, and the values its argument takes (`completion`: bash zsh fish). */
  subcommands: string[];
  /** The values an option takes (`--format`: csv tsv …), by each of its flags. */
  values: Array<{ flag: string; choices: string[] }>;
}

function wordsOf(root: Command): { globals: string[]; commands: CommandWords[] } {
  const flags = (command: Command): string[] =>
    command.options.flatMap((option) => [option.long, option.short].filter((flag): flag is string => Boolean(flag)));
  const globals = [...flags(root).filter((flag) => !['--version', '-V'].includes(flag)), '--help'];
  return {
    globals,
    commands: root.commands.map((command) => ({
      names: [command.name(), ...command.aliases()],
      description: command.description().replace(/\s+/g, ' '),
      // once each: an option of the command that is also global is not listed twice
      options: [...new Set(flags(command))].filter((flag) => !globals.includes(flag)),
      subcommands: [
        ...command.commands.map((sub) => sub.name()),
        ...command.registeredArguments.flatMap((argument) => argument.argChoices ?? []),
      ],
      values: command.options.flatMap((option) =>
        option.argChoices ? [option.long, option.short].filter(Boolean).map((flag) => ({ flag: flag!, choices: option.argChoices! })) : [],
      ),
    })),
  };
}

/** Every word of a command line after `command`: its subcommands, its options and the global ones, once each. */
const wordsAfter = (c: CommandWords, globals: readonly string[]): string =>
  [...new Set([...c.subcommands, ...c.options, ...globals])].join(' ');

function bashScript(root: Command): string {
  const { globals, commands } = wordsOf(root);
  const cases = commands.map((c) => `    ${c.names.join('|')}) words="${wordsAfter(c, globals)}" ;;`).join('\n');
  const values = commands
    .flatMap((c) => c.values.map((v) => `    ${c.names.map((name) => `"${name} ${v.flag}"`).join('|')}) words="${v.choices.join(' ')}" ;;`))
    .join('\n');
  return `# tds bash completion: add to ~/.bashrc:  source <(tds completion bash)
_tds_complete() {
  local cur=\${COMP_WORDS[COMP_CWORD]} prev=\${COMP_WORDS[COMP_CWORD-1]} command="" words i
  for ((i = 1; i < COMP_CWORD; i++)); do
    case "\${COMP_WORDS[i]}" in -*) ;; *) command="\${COMP_WORDS[i]}"; break ;; esac
  done
  case "$command $prev" in
${values}
    *) words="" ;;
  esac
  if [[ -n "$words" ]]; then
    COMPREPLY=($(compgen -W "$words" -- "$cur"))
    return
  fi
  case "$command" in
${cases}
    *) words="${commands.flatMap((c) => c.names).join(' ')} ${globals.join(' ')}" ;;
  esac
  if [[ "$cur" != -* && -n "$command" ]]; then
    COMPREPLY=($(compgen -f -- "$cur") $(compgen -W "$words" -- "$cur"))
  else
    COMPREPLY=($(compgen -W "$words" -- "$cur"))
  fi
}
complete -o filenames -F _tds_complete tds
`;
}

function zshScript(root: Command): string {
  const { globals, commands } = wordsOf(root);
  const quote = (text: string) => text.replace(/'/g, "'\\''").replace(/:/g, '\\:');
  const list = commands.flatMap((c) => c.names.map((name) => `'${name}:${quote(c.description)}'`)).join(' ');
  const values = commands
    .flatMap((c) =>
      c.values.map((v) => `    ${c.names.map((name) => `'${name} ${v.flag}'`).join('|')}) compadd -- ${v.choices.join(' ')}; return ;;`),
    )
    .join('\n');
  const cases = commands.map((c) => `    ${c.names.join('|')}) compadd -- ${wordsAfter(c, globals)}; _files ;;`).join('\n');
  return `#compdef tds
# tds zsh completion: add to ~/.zshrc:  source <(tds completion zsh)
_tds() {
  local -a commands
  commands=(${list})
  if (( CURRENT == 2 )); then
    _describe 'command' commands
    compadd -- ${globals.join(' ')}
    return
  fi
  case "\${words[2]} \${words[CURRENT-1]}" in
${values}
  esac
  case "\${words[2]}" in
${cases}
  esac
}
compdef _tds tds
`;
}

function fishScript(root: Command): string {
  const { globals, commands } = wordsOf(root);
  const quote = (text: string) => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  const names = commands.flatMap((c) => c.names).join(' ');
  const lines = [
    '# tds fish completion: tds completion fish > ~/.config/fish/completions/tds.fish',
    'complete -c tds -f',
    ...commands.flatMap((c) =>
      c.names.map((name) => `complete -c tds -n "not __fish_seen_subcommand_from ${names}" -a ${name} -d ${quote(c.description)}`),
    ),
    ...globals.filter((flag) => flag.startsWith('--')).map((flag) => `complete -c tds -l ${flag.slice(2)}`),
  ];
  for (const c of commands) {
    const seen = `__fish_seen_subcommand_from ${c.names.join(' ')}`;
    for (const sub of c.subcommands) lines.push(`complete -c tds -n "${seen}" -a ${sub}`);
    for (const flag of c.options.filter((f) => f.startsWith('--'))) {
      const choices = c.values.find((v) => v.flag === flag)?.choices;
      lines.push(`complete -c tds -n "${seen}" -l ${flag.slice(2)}${choices ? ` -xa ${quote(choices.join(' '))}` : ''}`);
    }
    if (['rows', 'query', 'push'].includes(c.names[0]!)) lines.push(`complete -c tds -n "${seen}" -F`);
  }
  return `${lines.join('\n')}\n`;
}

const SCRIPTS = { bash: bashScript, zsh: zshScript, fish: fishScript } as const;

export function completionCommand(ctx: Context): Command {
  return new Command('completion')
    .description(SUMMARIES.completion.description)
    .addArgument(new Argument('<shell>', 'the shell').choices(Object.keys(SCRIPTS)))
    .addHelpText(
      'after',
      `
Examples:
  source <(tds completion bash)                       # in ~/.bashrc
  source <(tds completion zsh)                        # in ~/.zshrc
  tds completion fish > ~/.config/fish/completions/tds.fish`,
    )
    .action((shell: keyof typeof SCRIPTS, _options: unknown, command: Command) => {
      const root = command.parent ?? command;
      ctx.io.stdout.write(SCRIPTS[shell](root));
    });
}
