import { describe, expect, it } from 'vitest';
import { programCommands } from './helpers/program-commands.js';
import { runInProcess } from './helpers/run-in-process.js';

const COMMANDS = programCommands();

describe('tds program', () => {
  it('has the commands of docs/cli.md among its own', () => {
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

  it("commander's own errors use the `tds: … hint: …` form", async () => {
    const missing = await runInProcess(['rows']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe("tds: missing required argument 'table'\nhint: run `tds rows --help` for usage\n");
    const typo = await runInProcess(['rows', 'Leads', '--fomat', 'csv']);
    expect(typo.stderr).toBe("tds: unknown option '--fomat'\nhint: did you mean --format; run `tds rows --help` for usage\n");
  });

  it('bare tds prints the top-level help with examples and where to start, and exits 0', async () => {
    const result = await runInProcess([]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: tds /);
    expect(result.stdout).toMatch(/^Examples:\n {2}\$ tds /m);
    expect(result.stdout).toContain('new here? run `tds demo`');
  });

  it.each([
    ['not a terminal, COLUMNS unset', {}, 80],
    ['not a terminal, COLUMNS=60', { COLUMNS: '60' }, 60],
    ['a terminal of 120 columns', { TDS_FORCE_TTY: '1', COLUMNS: '120' }, 120],
  ])('--help of every command wraps at the width (%s), with no (default: [])', async (_what, env, width) => {
    for (const command of [[], ...COMMANDS.map((c) => [c.name()])]) {
      const result = await runInProcess([...command, '--help'], { env });
      expect(result.code).toBe(0);
      for (const line of result.stdout.split('\n')) {
        // an example command is kept whole so that it can be copied
        if (!/^\s*\$ /.test(line)) expect(line.length, `tds ${command.join(' ')}: ${line}`).toBeLessThanOrEqual(width);
      }
      expect(result.stdout).not.toContain('(default: [])');
    }
    const wide = await runInProcess(['rows', '--help'], { env });
    expect(wide.stdout.split('\n').some((line) => line.length > width - 20)).toBe(true);
  });

  it('--help of every command and subcommand at 80 columns: prose wrapped once, as paragraphs (no line broken twice)', async () => {
    const paths = COMMANDS.flatMap((c) => [[c.name()], ...c.commands.map((sub) => [c.name(), sub.name()])]);
    for (const command of [[], ...paths]) {
      const lines = (await runInProcess([...command, '--help'])).stdout.split('\n');
      const prose = (line: string | undefined): boolean => line !== undefined && /^\S/.test(line) && !/^[A-Z][A-Za-z ]*:$/.test(line);
      lines.forEach((line, index) => {
        if (!/^\s*\$ /.test(line)) expect([...line].length, `tds ${command.join(' ')}: ${line}`).toBeLessThanOrEqual(80);
        const next = lines[index + 1];
        // a line of a paragraph ends only where the next word would not fit
        if (prose(line) && prose(next) && !line.startsWith('Usage:')) {
          const word = next!.split(' ')[0]!;
          expect([...line].length + 1 + [...word].length, `tds ${command.join(' ')}: "${line}" then "${word}"`).toBeGreaterThan(80);
        }
      });
    }
  });
});
