import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Command } from 'commander';
import { buildProgram } from '../../src/program.js';
import type { Context } from '../../src/core/context.js';
import { memoryContext } from '../helpers/context.js';
import { tdsArguments } from '../helpers/shell-words.js';

// Every example command in the README and in each --help parses: a usage error in the docs fails the build.

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

function codeBlockLines(markdown: string): string[] {
  const lines: string[] = [];
  let inBlock = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) inBlock = !inBlock;
    else if (inBlock) lines.push(line);
  }
  return lines;
}

function helpExamples(command: Command, into: string[] = []): string[] {
  let help = '';
  command.configureOutput({ writeOut: (text) => (help += text), writeErr: () => undefined });
  command.outputHelp();
  into.push(...help.split('\n').filter((line) => /^\s+(\$ )?tds /.test(line)));
  for (const sub of command.commands) helpExamples(sub, into);
  return into;
}

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const readmeExamples = codeBlockLines(readme)
  .map((line) => ({ line, args: tdsArguments(line) }))
  .filter((example): example is { line: string; args: string[] } => example.args !== undefined);
const helpLines = helpExamples(buildProgram(quietContext()))
  .map((line) => ({ line, args: tdsArguments(line)! }))
  .filter((example) => example.args !== undefined);

describe('documented examples parse', () => {
  it('finds examples to check', () => {
    // it.each over an empty list runs no test and passes: a change in how examples are written must fail here
    expect(readmeExamples.length).toBeGreaterThanOrEqual(2);
    expect(helpLines.length).toBeGreaterThanOrEqual(20);
  });

  it.each(readmeExamples.map((example) => [example.line, example.args] as const))('README: %s', async (_line, args) => {
    await parses(args);
  });

  it.each(helpLines.map((example) => [example.line.trim(), example.args] as const))('--help: %s', async (_line, args) => {
    await parses(args);
  });
});
