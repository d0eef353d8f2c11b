import { Argument, Command } from 'commander';
import type { Context } from '../core/context.js';

// `tds completion bash|zsh|fish`: scripts generated from the program itself, so they never drift.

interface CommandWords {
  name: string;
  description: string;
  options: string[];
  subcommands: string[];
}

function wordsOf(root: Command): { globals: string[]; commands: CommandWords[] } {
  const flags = (command: Command): string[] =>
    command.options.flatMap((option) => [option.long, option.short].filter((flag): flag is string => Boolean(flag)));
  const globals = flags(root).filter((flag) => !['--version', '-V'].includes(flag));
  return {
    globals: [...globals, '--help'],
    commands: root.commands.map((command) => ({
      name: command.name(),
      description: command.description().replace(/\s+/g, ' '),
      options: flags(command),
      subcommands: command.commands.map((sub) => sub.name()),
    })),
  };
}

function bashScript(root: Command): string {
  const { globals, commands } = wordsOf(root);
  const cases = commands.map((c) => `    ${c.name}) words="${[...c.subcommands, ...c.options, ...globals].join(' ')}" ;;`).join('\n');
  return `# tds bash completion: add to ~/.bashrc:  source <(tds completion bash)
_tds_complete() {
  local cur=\${COMP_WORDS[COMP_CWORD]} command="" words i
  for ((i = 1; i < COMP_CWORD; i++)); do
    case "\${COMP_WORDS[i]}" in -*) ;; *) command="\${COMP_WORDS[i]}"; break ;; esac
  done
  case "$command" in
${cases}
    *) words="${commands.map((c) => c.name).join(' ')} ${globals.join(' ')}" ;;
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
  const list = commands.map((c) => `'${c.name}:${quote(c.description)}'`).join(' ');
  const cases = commands
    .map((c) => `    ${c.name}) compadd -- ${[...c.subcommands, ...c.options, ...globals].join(' ')}; _files ;;`)
    .join('\n');
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
  const names = commands.map((c) => c.name).join(' ');
  const lines = [
    '# tds fish completion: tds completion fish > ~/.config/fish/completions/tds.fish',
    'complete -c tds -f',
    ...commands.map((c) => `complete -c tds -n "not __fish_seen_subcommand_from ${names}" -a ${c.name} -d ${quote(c.description)}`),
    ...globals.filter((flag) => flag.startsWith('--')).map((flag) => `complete -c tds -l ${flag.slice(2)}`),
  ];
  for (const c of commands) {
    for (const sub of c.subcommands) lines.push(`complete -c tds -n "__fish_seen_subcommand_from ${c.name}" -a ${sub}`);
    for (const flag of c.options.filter((f) => f.startsWith('--'))) {
      lines.push(`complete -c tds -n "__fish_seen_subcommand_from ${c.name}" -l ${flag.slice(2)}`);
    }
    if (['rows', 'query', 'push'].includes(c.name)) lines.push(`complete -c tds -n "__fish_seen_subcommand_from ${c.name}" -F`);
  }
  return `${lines.join('\n')}\n`;
}

const SCRIPTS = { bash: bashScript, zsh: zshScript, fish: fishScript } as const;

export function completionCommand(ctx: Context): Command {
  return new Command('completion')
    .description('print a shell completion script (bash, zsh or fish)')
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
