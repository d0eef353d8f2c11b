import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { programCommands } from './helpers/program-commands.js';
import { runInProcess } from './helpers/run-in-process.js';

const COMMANDS = programCommands().map((command) => command.name());

describe('tds completion', () => {
  it.each(['bash', 'zsh', 'fish'])('prints a %s script naming every command of the program', async (shell) => {
    const result = await runInProcess(['completion', shell]);
    expect(result.code).toBe(0);
    expect(COMMANDS).toContain('completion');
    for (const name of COMMANDS) expect(result.stdout).toMatch(new RegExp(`\\b${name}\\b`));
  });

  it('prints a bash script that bash accepts', async () => {
    const result = await runInProcess(['completion', 'bash']);
    expect(result.code, result.stderr).toBe(0);
    // bash -n accepts empty input too: make sure there is a script to check
    expect(result.stdout).toMatch(/^complete .* tds$/m);
    expect(() => execFileSync('bash', ['-n'], { input: result.stdout, stdio: ['pipe', 'pipe', 'pipe'] })).not.toThrow();
  });

  it('rejects an unknown shell with exit 2', async () => {
    const result = await runInProcess(['completion', 'ksh']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Allowed choices are bash, zsh, fish');
  });

  /** What bash completes for the words of a command line (the last one is being typed). */
  async function bashCompletes(words: string[]): Promise<string[]> {
    const script = (await runInProcess(['completion', 'bash'])).stdout;
    const line = ['tds', ...words].map((word) => `'${word}'`).join(' ');
    const run = `${script}\nCOMP_WORDS=(${line}); COMP_CWORD=${words.length}; _tds_complete; printf '%s\\n' "\${COMPREPLY[@]}"`;
    return execFileSync('bash', ['-c', run], { cwd: '/', encoding: 'utf8' }).split('\n').filter(Boolean);
  }

  it('bash offers the values of --format and --header, the shells of completion, and doctor', async () => {
    expect(await bashCompletes(['rows', '--format', ''])).toEqual(['table', 'csv', 'tsv', 'ndjson', 'json', 'parquet']);
    expect(await bashCompletes(['query', 'Leads', '--header', ''])).toEqual(['label', 'name', 'id']);
    expect(await bashCompletes(['completion', 'z'])).toEqual(['zsh']);
    expect(await bashCompletes(['doc'])).toEqual(['doctor']);
  });

  it.each(['bash', 'zsh'])('%s lists no option twice for a command', async (shell) => {
    const script = (await runInProcess(['completion', shell])).stdout;
    const lists = [...script.matchAll(/^ {4}[\w|]+\) (?:words="([^"]*)"|compadd -- ([^;]*);)/gm)].map((m) => (m[1] ?? m[2]!).split(' '));
    expect(lists.length).toBeGreaterThan(10);
    for (const words of lists) expect(words.length).toBe(new Set(words).size);
  });

  it('fish offers the values of an option', async () => {
    const script = (await runInProcess(['completion', 'fish'])).stdout;
    expect(script).toContain(`complete -c tds -n "__fish_seen_subcommand_from rows" -l format -xa 'table csv tsv ndjson json parquet'`);
    expect(script).toMatch(/-a doctor /);
  });
});
