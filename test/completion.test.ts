import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { runTds } from './helpers/cli.js';

describe('tds completion', () => {
  it.each(['bash', 'zsh', 'fish'])('prints a %s script naming every command', async (shell) => {
    const result = await runTds(['completion', shell]);
    expect(result.code).toBe(0);
    for (const name of ['workspaces', 'tables', 'schema', 'rows', 'query', 'push', 'stats', 'emulator', 'demo', 'config']) {
      expect(result.stdout).toContain(name);
    }
  });

  it('prints a bash script that bash accepts', async () => {
    const result = await runTds(['completion', 'bash']);
    expect(result.code, result.stderr).toBe(0);
    // bash -n accepts empty input too: make sure there is a script to check
    expect(result.stdout).toMatch(/^complete .* tds$/m);
    expect(() => execFileSync('bash', ['-n'], { input: result.stdout, stdio: ['pipe', 'pipe', 'pipe'] })).not.toThrow();
  });

  it('rejects an unknown shell with exit 2', async () => {
    const result = await runTds(['completion', 'ksh']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Allowed choices are bash, zsh, fish');
  });
});
