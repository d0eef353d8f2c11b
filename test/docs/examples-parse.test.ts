import { describe, expect, it } from 'vitest';
import type { Command } from 'commander';
import { buildProgram } from '../../src/program.js';
import type { Context } from '../../src/core/context.js';
import { memoryContext } from '../helpers/context.js';
import { tdsArguments } from '../helpers/shell-words.js';
import { codeBlockLines, codeBlocks, markdownPages, readPage } from './markdown.js';
import { parseChecks } from '../../src/check/checks-file.js';

// Every example command in the README, in each page of the manual (docs/) and in each --help parses: a usage
// error in the docs fails the build.

class Parsed extends Error {}

/** A context whose output nobody reads (help and usage errors are written somewhere). */
const quietContext = (): Context => memoryContext().ctx;

/** Parses argv as tds would, stopping just before the command's action runs. */
async function parses(args: string[]): Promise<void> {
  const program = buildProgram(quietContext());
  program.hook('preAction', () => {
    throw new Parsed();
  });
  try {
    await program.parseAsync(args, { from: 'user' });
  } catch (error) {
    if (error instanceof Parsed) return;
    if ((error as { code?: string }).code === 'commander.helpDisplayed') return;
    throw error;
  }
}

function helpExamples(command: Command, into: string[] = []): string[] {
  let help = '';
  command.configureOutput({ writeOut: (text) => (help += text), writeErr: () => undefined });
  command.outputHelp();
  into.push(...help.split('\n').filter((line) => /^\s+(\$ )?tds /.test(line)));
  for (const sub of command.commands) helpExamples(sub, into);
  return into;
}

/** The example commands of each page: the README and the guides (the reference's are the --help's, below). */
const pageExamples = markdownPages()
  .filter((page) => !page.startsWith('docs/reference/'))
  .flatMap((page) =>
    codeBlockLines(readPage(page)).flatMap((line) => {
      const args = tdsArguments(line);
      return args === undefined ? [] : [{ page, line, args }];
    }),
  );
const pagesWithExamples = new Set(pageExamples.map((example) => example.page));
const helpLines = helpExamples(buildProgram(quietContext()))
  .map((line) => ({ line, args: tdsArguments(line)! }))
  .filter((example) => example.args !== undefined);

describe('documented examples parse', () => {
  it('finds examples to check', () => {
    // it.each over an empty list runs no test and passes: a change in how examples are written must fail here
    expect(pageExamples.length).toBeGreaterThanOrEqual(85);
    // the README and every guide of a job shows its commands
    for (const page of [
      'README.md',
      'docs/setup.md',
      'docs/export.md',
      'docs/push.md',
      'docs/sync.md',
      'docs/history.md',
      'docs/lake.md',
    ]) {
      expect(pagesWithExamples).toContain(page);
    }
    for (const page of ['docs/stats.md', 'docs/check.md', 'docs/emulator.md']) expect(pagesWithExamples).toContain(page);
    expect(helpLines.length).toBeGreaterThanOrEqual(20);
  });

  it.each(pageExamples.map((example) => [example.page, example.line, example.args] as const))('%s: %s', async (_page, _line, args) => {
    await parses(args);
  });

  it.each(helpLines.map((example) => [example.line.trim(), example.args] as const))('--help: %s', async (_line, args) => {
    await parses(args);
  });

  it('the checks file of docs/check.md is read as written: the contract and one check of each kind', () => {
    const [example] = codeBlocks(readPage('docs/check.md'), 'yaml');
    const [leads] = parseChecks(example!, 'docs/check.md');
    expect(leads!.ref).toBe('Leads');
    expect(leads!.schema?.onDrift).toBe('fail');
    expect(leads!.checks.map((check) => [check.name, check.severity])).toEqual([
      ['rows', 'fail'],
      ['fill Email', 'fail'],
      ['unique Email', 'fail'],
      ['accepted Stage', 'fail'],
      ['failure_rate Enrich', 'fail'],
      ['stuck Enrich', 'fail'],
      ['activity', 'fail'],
      ['fresh', 'fail'],
      ['stale', 'fail'],
      ['sql owners', 'warn'],
    ]);
  });
});
