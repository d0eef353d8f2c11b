import { describe, expect, it } from 'vitest';
import { programCommands } from './helpers/program-commands.js';
import { runInProcess } from './helpers/run-in-process.js';

const COMMANDS = programCommands();

describe('tds program', () => {
  it('has the commands of CLI.md among its own', () => {
    // the list the checks below read must be the program's: here a sample that must be in it
    expect(COMMANDS.map((command) => command.name())).toEqual(
      expect.arrayContaining(['workspaces', 'tables', 'schema', 'rows', 'query', 'push', 'sync', 'sql', 'emulator', 'demo', 'config']),
    );
  });

  it('prints help with every command of the program, each with its description, and exits 0', async () => {
    const result = await runInProcess(['--help']);
    expect(result.code).toBe(0);
    const flowing = result.stdout.replace(/\s+/g, ' '); // commander wraps long descriptions
    for (const command of COMMANDS) {
      expect(result.stdout).toMatch(new RegExp(`^  ${command.name()}\\b`, 'm'));
      expect(flowing).toContain(command.description().replace(/\s+/g, ' ').slice(0, 30));
    }
  });

  it('prints the version', async () => {
    const result = await runInProcess(['--version']);
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('exits 2 on an unknown option', async () => {
    const result = await runInProcess(['--bogus']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("unknown option '--bogus'");
  });
});
