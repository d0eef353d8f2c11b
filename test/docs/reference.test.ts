import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/program.js';
import { REFERENCE_DIR, referencePages } from '../../scripts/docs-reference.js';
import { memoryContext } from '../helpers/context.js';

// docs/reference/ is what `npm run docs:reference` writes from the commands' definitions: a help text
// changed without the reference written again fails here, so `--help` and the docs cannot drift apart.

const pages = referencePages(buildProgram);

describe('the command reference (docs/reference/)', () => {
  it('has a page for the program and for each of its commands, and no other', () => {
    const names = buildProgram(memoryContext().ctx).commands.map((command) => `${command.name()}.md`);
    expect([...pages.keys()].sort()).toEqual(['README.md', 'tds.md', ...names].sort());
    const committed = readdirSync(REFERENCE_DIR).filter((name) => name.endsWith('.md'));
    expect(committed.sort(), 'run `npm run docs:reference`').toEqual([...pages.keys()].sort());
  });

  it.each([...pages.keys()])('%s is as the commands define it', (name) => {
    const committed = readFileSync(join(REFERENCE_DIR, name), 'utf8');
    expect(committed, 'run `npm run docs:reference` and commit docs/reference/').toBe(pages.get(name));
  });

  it("a command's page shows its usage, options and examples", () => {
    const rows = pages.get('rows.md')!;
    expect(rows).toContain('tds rows [options] <table>');
    expect(rows).toMatch(/^\| `--format <format>` \| .*\(choices: "table", "csv"/m);
    expect(rows).toContain('  $ tds rows Leads > leads.csv');
    expect(pages.get('config.md')).toMatch(/^## tds config set$/m);
  });
});
