import { describe, expect, it } from 'vitest';
import { runTds } from './helpers/cli.js';

describe('tds program', () => {
  it('prints help with every command of CLI.md and exits 0', async () => {
    const result = await runTds(['--help']);
    expect(result.code).toBe(0);
    for (const name of ['workspaces', 'tables', 'schema', 'rows', 'query', 'push', 'stats', 'emulator', 'demo', 'config']) {
      expect(result.stdout).toMatch(new RegExp(`^  ${name}\\b`, 'm'));
    }
  });

  it('prints the version', async () => {
    const result = await runTds(['--version']);
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('exits 2 on an unknown option', async () => {
    const result = await runTds(['--bogus']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("unknown option '--bogus'");
  });
});
