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
});
