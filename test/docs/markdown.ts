import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

// The repository's pages as the docs tests read them: which files, their code blocks, their headings and
// the anchors GitHub gives those headings.

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The files under `dir` (relative to the root) whose names end in one of `extensions`, as root-relative paths. */
export function filesUnder(dir: string, extensions: string[]): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((name) => extensions.some((extension) => name.endsWith(extension)))
    .map((name) => relative(ROOT, join(ROOT, dir, name)))
    .sort();
}

/** The README and every page of the manual (docs/, the generated reference included). */
export function markdownPages(): string[] {
  return ['README.md', ...filesUnder('docs', ['.md'])];
}

export function readPage(path: string): string {
  return readFileSync(join(ROOT, path), 'utf8');
}

/** Each line of the page with whether it is inside a fenced code block. */
function linesWithFences(markdown: string): { line: string; inBlock: boolean }[] {
  let inBlock = false;
  return markdown.split('\n').map((line) => {
    if (line.startsWith('```')) {
      inBlock = !inBlock;
      return { line, inBlock: true };
    }
    return { line, inBlock };
  });
}

/** The lines inside fenced code blocks. */
export function codeBlockLines(markdown: string): string[] {
  return linesWithFences(markdown)
    .filter(({ line, inBlock }) => inBlock && !line.startsWith('```'))
    .map(({ line }) => line);
}

/** The fenced code blocks of a language (```yaml), each as its text. */
export function codeBlocks(markdown: string, language: string): string[] {
  const blocks: string[] = [];
  let current: string[] | undefined;
  for (const line of markdown.split('\n')) {
    if (current === undefined && line === `\`\`\`${language}`) current = [];
    else if (current !== undefined && line.startsWith('```')) {
      blocks.push(`${current.join('\n')}\n`);
      current = undefined;
    } else current?.push(line);
  }
  return blocks;
}

/** The text of each heading (outside code blocks), without its `#`s. */
export function headings(markdown: string): string[] {
  return linesWithFences(markdown)
    .filter(({ line, inBlock }) => !inBlock && /^#{1,6} /.test(line))
    .map(({ line }) => line.replace(/^#+ /, '').trim());
}

/** The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces as `-`, repeats numbered. */
export function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const heading of headings(markdown)) {
    const slug = heading
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M} _-]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    result.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return result;
}
