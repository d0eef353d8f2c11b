import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse, type DefaultTreeAdapterMap } from 'parse5';
import { describe, expect } from 'vitest';
import { dayColumns, scaleTop } from '../../src/stats/svg-charts.js';
import { FIXTURE_NAME, makeFixture } from './fixture.js';
import { test as it, type Harness } from '../helpers/emulator-fixture.js';

// `tds stats -o FILE.html`: the page parsed as a browser parses it (parse5, the WHATWG algorithm):
// its sections and charts, nothing it would load from outside, and outside text (a table name, labels,
// values, error messages) that stays text however hostile.

type Node = DefaultTreeAdapterMap['node'];
type Element = DefaultTreeAdapterMap['element'];

function* elements(node: Node): Generator<Element> {
  if ('tagName' in node) yield node;
  const children =
    'content' in node && node.nodeName === 'template' ? node.content.childNodes : 'childNodes' in node ? node.childNodes : [];
  for (const child of children) yield* elements(child);
}
const textOf = (node: Node): string =>
  node.nodeName === '#text'
    ? (node as DefaultTreeAdapterMap['textNode']).value
    : 'childNodes' in node
      ? node.childNodes.map(textOf).join('')
      : '';
const attr = (element: Element, name: string): string | undefined => element.attrs.find((a) => a.name === name)?.value;
const byId = (root: Node, id: string): Element => {
  const found = [...elements(root)].find((element) => attr(element, 'id') === id);
  expect(found, `#${id}`).toBeDefined();
  return found!;
};
const rowsOf = (table: Element): string[][] =>
  [...elements(table)]
    .filter((e) => e.tagName === 'tr')
    .map((tr) => tr.childNodes.filter((c) => 'tagName' in c).map((td) => textOf(td).trim()));

const HOSTILE = {
  table: '<script>alert("table")</script> & Co',
  label: '<img src=x onerror=alert(1)> "Q" & \'A\'',
  action: '</style><script>alert(3)</script>',
  error: '</td></tr><script>alert(4)</script> for https://evil.example/?a=1&b=2',
  value: '<svg onload=alert(5)><a href="https://evil.example">x</a>',
};

let harness: Harness;
let page: DefaultTreeAdapterMap['document'];
let hostile: DefaultTreeAdapterMap['document'];
let hostileText: string;

it.beforeAll(async ({ openForFile }) => {
  harness = await openForFile();
  await makeFixture(harness);
  const written = await harness.tds(['stats', FIXTURE_NAME, '-o', join(harness.dir, 'report.html')]);
  expect(written.code, written.stderr).toBe(0);
  expect(written.stdout).toBe('');
  page = parse(await readFile(join(harness.dir, 'report.html'), 'utf8'));

  const created = await harness.admin<{ table: { id: string } }>('POST', '/tables', {
    workspace: 'Sales',
    name: HOSTILE.table,
    fields: [
      { label: HOSTILE.label, type: 'text' },
      { label: HOSTILE.action, type: 'action' },
    ],
  });
  await harness.admin('POST', `/tables/${created.table.id}/rows`, {
    rows: [
      { cells: { [HOSTILE.label]: HOSTILE.value, [HOSTILE.action]: { status: 'failed', errorMessage: HOSTILE.error } } },
      { cells: { [HOSTILE.label]: HOSTILE.value, [HOSTILE.action]: { status: 'success', value: HOSTILE.value } } },
    ],
  });
  const evil = await harness.tds(['stats', created.table.id, '-o', join(harness.dir, 'hostile.html')]);
  expect(evil.code, evil.stderr).toBe(0);
  hostileText = await readFile(join(harness.dir, 'hostile.html'), 'utf8');
  hostile = parse(hostileText);
});

describe('tds stats -o FILE.html: the report page', () => {
  it('has its sections: rows per day, fill per column, run states, failure causes, columns', () => {
    const sections = [...elements(page)].filter((e) => e.tagName === 'section').map((e) => attr(e, 'id'));
    expect(sections).toEqual(['per-day', 'fill', 'run-states', 'causes', 'columns']);
    expect(textOf([...elements(page)].find((e) => e.tagName === 'title')!)).toBe(`${FIXTURE_NAME}: table stats`);
  });

  it('draws its charts as inline SVG: a column per day, a bar per field, a stacked bar per action column', () => {
    const days = [...elements(byId(page, 'per-day'))].filter((e) => e.tagName === 'rect' && attr(e, 'class') === 'day');
    expect(days.map((rect) => textOf(rect))).toEqual(['2025-05-01: 5 rows', '2025-05-02: 5 rows', '2025-05-04: 5 rows']);
    // a date axis: 2025-05-03 had no row, and is a gap of one day's width between the 2nd and 3rd column
    const x = days.map((rect) => Number(attr(rect, 'x')));
    expect(x[2]! - x[1]!).toBeCloseTo(2 * (x[1]! - x[0]!), 1);
    // the scale is the round number at or above the largest day (5): the axis says 5, and a day of 5 reaches it
    expect(days.map((rect) => Number(attr(rect, 'height')))).toEqual([140, 140, 140]);
    expect(textOf([...elements(byId(page, 'per-day'))].find((e) => attr(e, 'class') === 'scale')!)).toMatch(/^5\s*0$/);
    // a bar per field: its label, the bar filled to its share, its figures
    const fill = [...elements(byId(page, 'fill'))];
    const labels = fill.filter((e) => attr(e, 'class') === 'label').map((span) => textOf(span));
    expect(labels).toHaveLength(11);
    expect(labels[0]).toBe('Name');
    expect(fill.filter((e) => e.tagName === 'rect' && attr(e, 'class') === 'fill').map((rect) => attr(rect, 'width'))[0]).toBe('66.67%');
    expect(fill.filter((e) => attr(e, 'class') === 'figure').map((span) => textOf(span))[0]).toBe('67% · 10 of 15');
    const chart = [...elements(byId(page, 'run-states'))].find((e) => attr(e, 'aria-label') === 'run states per action column')!;
    const segments = [...elements(chart)].filter((e) => e.tagName === 'rect' && attr(e, 'class')?.startsWith('state-'));
    expect(segments.map((rect) => textOf(rect))).toEqual([
      'success: 2',
      'failed: 5',
      'skipped: 1',
      'stopped: 1',
      'queued: 1',
      'waiting: 1',
      'running: 1',
      'manual: 1',
      'none: 2',
    ]);
    expect(rowsOf(byId(page, 'run-states'))[1]).toEqual(['Enrich', '2', '5', '1', '1', '1', '1', '1', '1', '2']);
  });

  it("keeps the charts' text readable on a phone: none of it in an SVG that scales, its size in CSS pixels", () => {
    const svgs = [...elements(page)].filter((e) => e.tagName === 'svg');
    // an SVG with a viewBox shrinks with the screen, and its text with it (to 6 px at 400 px wide):
    // text is drawn only in SVGs without one, where a unit is a CSS pixel
    const scaled = svgs.filter((svg) => (attr(svg, 'viewBox') ?? attr(svg, 'viewbox')) !== undefined);
    expect(scaled.length).toBeGreaterThan(0);
    for (const svg of scaled) expect([...elements(svg)].filter((e) => e.tagName === 'text')).toEqual([]);
    // the labels are HTML: a field's whole name, the per-day chart's dates and scale
    const labels = [...elements(byId(page, 'run-states'))].filter((e) => attr(e, 'class') === 'label').map(textOf);
    expect(labels).toEqual(['Enrich']);
    const perDay = textOf(byId(page, 'per-day'));
    for (const day of ['2025-05-01', '2025-05-02', '2025-05-04', '5']) expect(perDay).toContain(day);
    // the counts drawn on segments are SVG text in pixels, placed in percent
    const onBar = [...elements(byId(page, 'run-states'))].filter((e) => e.tagName === 'text');
    for (const text of onBar) expect(attr(text, 'x')).toMatch(/%$/);
    const css = textOf([...elements(page)].find((e) => e.tagName === 'style')!);
    const sizes = [...css.matchAll(/(?:\.bars|\.days|svg text)[^{]*\{[^}]*?font(?:-size)?:\s*(\d+)px/g)].map((m) => Number(m[1]));
    expect(sizes.length).toBeGreaterThanOrEqual(3);
    for (const size of sizes) expect(size).toBeGreaterThanOrEqual(12);
    // on a phone, a chart's label takes a line of its own above its bar, whole, wrapped if long
    const phone = /@media \(max-width: 600px\) \{([\s\S]*?)\n\}/.exec(css)?.[1] ?? '';
    expect(phone).toMatch(/\.bars \.label \{ grid-column: 1 \/ -1;[^}]*white-space: normal; overflow-wrap: anywhere;/);
  });

  it('prints on A4 in its light colours, no row or chart cut across pages', () => {
    const css = textOf([...elements(page)].find((e) => e.tagName === 'style')!);
    expect(css).toMatch(/@page \{ size: A4; margin: [^}]+\}/);
    const print = /@media print \{([\s\S]*?)\n\}/.exec(css)?.[1] ?? '';
    expect(print).toMatch(/svg, tr, \.legend, \.days, \.bars \{ break-inside: avoid; \}/);
    expect(print).toMatch(/h2, h3, \.note \{ break-after: avoid; \}/);
    expect(print).toMatch(/thead \{ display: table-header-group; \}/);
    // on paper there is no tooltip: a long label is wrapped whole, not cut
    expect(print).toMatch(/\.bars \.label \{ white-space: normal; overflow-wrap: anywhere; \}/);
    expect(css).toContain('print-color-adjust: exact');
    // no dark background anywhere (dark text on white; the colours are the charts' own)
    const backgrounds = [...css.matchAll(/background(?:-color)?:\s*#([0-9a-f]{3}|[0-9a-f]{6})\b/gi)].map((m) => m[1]!);
    expect(backgrounds.length).toBeGreaterThan(0);
    for (const hex of backgrounds) expect(luminance(hex), `#${hex}`).toBeGreaterThan(0.8);
    expect(css).toMatch(/:root \{ color-scheme: light; \}/);
  });

  it('works on a phone: a viewport, nothing wider than the screen, tables that reflow into labelled lines, long words wrapped', () => {
    const meta = [...elements(page)].filter((e) => e.tagName === 'meta');
    expect(meta.map((e) => attr(e, 'content'))).toContain('width=device-width, initial-scale=1');
    const css = textOf([...elements(page)].find((e) => e.tagName === 'style')!);
    // no rule gives anything a width in pixels or a minimum width that a 400-pixel screen lacks
    for (const [, value] of css.matchAll(/(?:^|[;{\s])(?:min-)?width:\s*(\d+)px/g)) expect(Number(value)).toBeLessThanOrEqual(360);
    expect(css).toMatch(/svg \{ max-width: 100%; height: auto; \}/);
    expect(css).toMatch(/td.values, td.example, td.ids, td.cause, h1, h2, h3, p \{ overflow-wrap: anywhere; \}/);
    const phone = /@media \(max-width: 600px\) \{([\s\S]*?)\n\}/.exec(css)?.[1] ?? '';
    expect(phone).toMatch(/table, thead, tbody, tr, th, td \{ display: block; width: 100%; \}/);
    expect(phone).toContain('td[data-label]::before { content: attr(data-label)');
    for (const id of ['run-states', 'causes', 'columns']) {
      const cells = [...elements(byId(page, id))].filter((e) => e.tagName === 'td');
      expect(cells.filter((td) => attr(td, 'data-label') === undefined && attr(td, 'class') !== 'key')).toEqual([]);
    }
    // it needs no script to work, and prints in its colours
    expect([...elements(page)].filter((e) => e.tagName === 'script')).toEqual([]);
    expect(css).toContain('print-color-adjust: exact');
  });

  it("sets each top value's count apart from the value, greyed", () => {
    const counts = [...elements(byId(page, 'columns'))].filter((e) => e.tagName === 'span' && attr(e, 'class') === 'count');
    expect(counts.length).toBeGreaterThan(0);
    for (const span of counts) expect(textOf(span)).toMatch(/^×[\d,]+$/);
  });

  it('lists the failure causes with their counts, an example message and row IDs', () => {
    const rows = rowsOf(byId(page, 'causes')).slice(1);
    expect(rows.map(([cells, cause]) => [cells, cause])).toEqual([
      ['3', 'Domain <domain> could not be resolved'],
      ['1', '(no message)'],
      ['1', 'RATE_LIMITED: Provider rate limit reached'],
    ]);
    expect(rows[0]![2]).toMatch(/^Domain [abc]\.example could not be resolved$/);
    expect(rows[0]![3]!.split(', ')).toHaveLength(3);
  });

  it('loads nothing from outside: no script, link, image, frame or font; no URL in attributes or style; a policy that forbids them', () => {
    for (const document of [page, hostile]) {
      const all = [...elements(document)];
      expect(
        all.filter((e) => ['script', 'link', 'img', 'iframe', 'object', 'embed', 'base', 'image', 'use', 'a'].includes(e.tagName)),
      ).toEqual([]);
      for (const element of all) {
        for (const { name } of element.attrs)
          expect(name, `<${element.tagName} ${name}>`).not.toMatch(/^(on|src|href|xlink:href|srcset|action|formaction|poster|background)/);
      }
      const style = all
        .filter((e) => e.tagName === 'style')
        .map(textOf)
        .join('');
      expect(style).toMatch(/@media print/);
      expect(style).not.toMatch(/url\(|@import|@font-face/);
      const policy = all.find((e) => e.tagName === 'meta' && attr(e, 'http-equiv') === 'Content-Security-Policy');
      expect(attr(policy!, 'content')).toMatch(/^default-src 'none'; style-src 'unsafe-inline'/);
    }
  });

  it('keeps a hostile table name, label, value and error message as text', () => {
    const text = textOf(hostile);
    for (const piece of [HOSTILE.table, HOSTILE.label, HOSTILE.action, HOSTILE.error]) expect(text).toContain(piece);
    expect(text).toContain(HOSTILE.value);
    // each element is one of the page's own: none was made from a value
    const tags = new Set([...elements(hostile)].map((e) => e.tagName));
    expect([...tags].filter((tag) => !PAGE_TAGS.has(tag))).toEqual([]);
    expect(hostileText).not.toContain('<script');
  });
});

/** Relative luminance of a hex colour, 0 (black) to 1 (white). */
function luminance(hex: string): number {
  const full = hex.length === 3 ? [...hex].map((c) => c + c).join('') : hex;
  const [r, g, b] = [0, 2, 4].map((i) => {
    const c = parseInt(full.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}

const PAGE_TAGS = new Set(
  'html head meta title style body header h1 h2 h3 p section svg g rect text title line div span table thead tbody tr th td em br code footer'.split(
    ' ',
  ),
);

describe('the charts, alone', () => {
  it.each([
    [1, 1],
    [2, 2],
    [3, 5],
    [5, 5],
    [7, 10],
    [10, 10],
    [11, 20],
    [600, 1000],
  ])('the per-day scale of a largest day of %d is %d', (largest, top) => expect(scaleTop(largest)).toBe(top));

  it('a day of one row is "1 row", at full height on a scale of 1', () => {
    const chart = parse(dayColumns([{ day: '2026-12-07', rows: 1 }]).text);
    const [rect] = [...elements(chart)].filter((e) => e.tagName === 'rect');
    expect(textOf(rect!)).toBe('2026-12-07: 1 row');
    expect(attr(rect!, 'height')).toBe('140');
  });

  it('a key that is not its label says why ("Email (2)": another column is labelled Email)', () => {
    const rows = rowsOf(byId(page, 'columns'));
    expect(rows.map((row) => row[0])).toContain('Email (2)label "Email", shared with another column: (2) tells them apart');
  });
});
