import { existsSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, anchors, filesUnder, headings, markdownPages, readPage } from './markdown.js';

// Every citation resolves. A code comment (or test, or bench) that cites a page of docs/ cites an existing
// page and, where it names one, an existing section: a heading in quotes (`docs/cli.md "Row records"`: the
// heading, or a heading that begins with it and a colon), a numbered section (`docs/service-api.md 4.5`,
// `section 8`, `sections 4.1-4.3`, `4.7 and 7`), or an anchor (`#row-records`). Every link of the README and
// the manual reaches a file that exists, and a heading of it when it names one.

/** The code whose comments cite the docs (test/docs/ names citations as examples, so it is left out). */
const CODE = [
  ...filesUnder('src', ['.ts']),
  ...filesUnder('test', ['.ts']).filter((path) => !path.startsWith(join('test', 'docs'))),
  ...filesUnder('bench', ['.js', '.mjs']),
  ...filesUnder('scripts', ['.js']),
  ...filesUnder('sea', ['.js', '.cjs']),
  ...filesUnder('bin', ['.js']),
];

interface Citation {
  where: string;
  page: string;
  /** what follows the page's name on the line */
  rest: string;
}

function citations(): Citation[] {
  const found: Citation[] = [];
  for (const path of CODE) {
    readPage(path)
      .split('\n')
      .forEach((line, index) => {
        for (const match of line.matchAll(/(?<![\w/.-])(docs\/[\w./-]+\.md|README\.md)(?=[#\s,)"'.:;`]|$)/g)) {
          found.push({ where: `${path}:${index + 1}`, page: match[1]!, rest: line.slice(match.index + match[0].length) });
        }
      });
  }
  return found;
}

/** The heading a citation names in quotes right after the page (`"Row records"`, `, "Check"`), if any. */
const quotedHeading = (rest: string): string | undefined => /^,?\s+"([^"]+)"/.exec(rest)?.[1];

/** The section numbers a citation names right after the page (`4.5`, `section 8`, `sections 4.1-4.3`, `4.7 and 7`). */
function sectionNumbers(rest: string): string[] {
  const list = /^\s*\(?(?:sections?\s+)?(\d+(?:\.\d+)?(?:\s*(?:,|and|-)\s*\d+(?:\.\d+)?)*)/.exec(rest)?.[1];
  return list ? list.split(/\s*(?:,|and|-)\s*/) : [];
}

const numberedSections = (markdown: string): Set<string> =>
  new Set(headings(markdown).flatMap((heading) => /^(\d+(?:\.\d+)?)\.?\s/.exec(heading)?.[1] ?? []));

const namesHeading = (markdown: string, cited: string): boolean =>
  headings(markdown).some((heading) => heading === cited || heading.startsWith(`${cited}:`));

/** What is wrong with a citation, or undefined when it resolves. */
function problem({ page, rest }: Citation): string | undefined {
  if (!existsSync(join(ROOT, page))) return `${page} does not exist`;
  const markdown = readPage(page);
  const anchor = /^#([\w-]+)/.exec(rest)?.[1];
  if (anchor !== undefined && !anchors(markdown).has(anchor)) return `${page} has no heading #${anchor}`;
  const heading = quotedHeading(rest);
  if (heading !== undefined && !namesHeading(markdown, heading)) return `${page} has no heading "${heading}"`;
  const missing = sectionNumbers(rest).filter((number) => !numberedSections(markdown).has(number));
  if (missing.length > 0) return `${page} has no section ${missing.join(', ')}`;
  return undefined;
}

/** Every link of a page: its target (a path relative to the page, an anchor, or both) and line. */
function links(page: string): { where: string; target: string }[] {
  const found: { where: string; target: string }[] = [];
  let inBlock = false;
  readPage(page)
    .split('\n')
    .forEach((line, index) => {
      if (line.startsWith('```')) inBlock = !inBlock;
      if (inBlock) return;
      for (const match of line.replace(/`[^`]*`/g, '').matchAll(/\]\(([^)\s]+)\)/g)) {
        if (!/^[a-z]+:/.test(match[1]!)) found.push({ where: `${page}:${index + 1}`, target: match[1]! });
      }
    });
  return found;
}

function linkProblem(page: string, target: string): string | undefined {
  const [path = '', anchor] = target.split('#');
  const file = path === '' ? page : normalize(join(dirname(page), path));
  if (!existsSync(join(ROOT, file))) return `${file} does not exist`;
  if (anchor !== undefined && file.endsWith('.md') && !anchors(readPage(file)).has(anchor)) return `${file} has no heading #${anchor}`;
  return undefined;
}

describe('citations of the docs', () => {
  const all = citations();

  it('finds the citations to check, of each kind', () => {
    // a change in how citations are written must fail here, not pass by finding none
    expect(all.length).toBeGreaterThanOrEqual(50);
    expect(all.some((citation) => quotedHeading(citation.rest) !== undefined)).toBe(true);
    expect(all.some((citation) => sectionNumbers(citation.rest).length > 0)).toBe(true);
  });

  it('each cites a page that exists, and a section of it that exists', () => {
    const broken = all.flatMap((citation) => {
      const wrong = problem(citation);
      return wrong === undefined ? [] : [`${citation.where}: ${wrong}`];
    });
    expect(broken).toEqual([]);
  });

  it('a heading that is not there is found (the check can fail)', () => {
    expect(problem({ where: 'x', page: 'docs/cli.md', rest: ' "API key missing"' })).toBe('docs/cli.md has no heading "API key missing"');
    expect(problem({ where: 'x', page: 'docs/service-api.md', rest: ' sections 4.1-4.9' })).toBe('docs/service-api.md has no section 4.9');
    expect(problem({ where: 'x', page: 'docs/sync.md', rest: ' "Freshness" (--max-stale)' })).toBeUndefined();
  });
});

describe('links of the README and the manual', () => {
  const pages = markdownPages();

  it('reads the README, the guides and the reference', () => {
    expect(pages).toEqual(expect.arrayContaining(['README.md', 'docs/cli.md', 'docs/development.md', 'docs/reference/rows.md']));
  });

  it('a link to a page or a heading that is not there is found (the check can fail)', () => {
    expect(linkProblem('README.md', 'docs/nowhere.md')).toBe('docs/nowhere.md does not exist');
    expect(linkProblem('docs/README.md', 'sync.md#freshness')).toBe('docs/sync.md has no heading #freshness');
    expect(linkProblem('docs/check.md', 'sync.md#freshness-the-mirror-keeps-itself-exact-and-says-how-exact-it-is')).toBeUndefined();
  });

  it('each reaches a file that exists, and a heading of it when it names one', () => {
    const broken = pages.flatMap((page) =>
      links(page).flatMap(({ where, target }) => {
        const wrong = linkProblem(page, target);
        return wrong === undefined ? [] : [`${where}: ${target}: ${wrong}`];
      }),
    );
    expect(broken).toEqual([]);
  });
});
