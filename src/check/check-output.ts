import type { ChalkInstance } from 'chalk';
import type { Context } from '../core/index.js';
import { renderTable, tableFit } from '../output/table.js';
import { observedText, tally, type CheckResult, type CheckStatus } from './check-result.js';

// The results in each format: `table` (for people: grouped by table, a symbol per status that reads
// without colour too), `json` (an array of results), `junit` (JUnit XML, one test case per check, in
// the elements and attributes of the common JUnit schema that CI systems read).

export const CHECK_FORMATS = ['table', 'json', 'junit'] as const;
export type CheckFormat = (typeof CHECK_FORMATS)[number];

/** Each status's mark: distinct shapes, so that they differ without colour. */
const MARKS: Record<CheckStatus, { mark: string; style: (color: ChalkInstance, text: string) => string }> = {
  pass: { mark: '✓ pass', style: (color, text) => color.green(text) },
  warn: { mark: '! warn', style: (color, text) => color.yellow(text) },
  fail: { mark: '✗ FAIL', style: (color, text) => color.red.bold(text) },
  error: { mark: '? error', style: (color, text) => color.magenta(text) },
};

export function checksText(ctx: Context, results: readonly CheckResult[], format: CheckFormat, toFile: boolean): string {
  switch (format) {
    case 'json':
      return `${JSON.stringify(results, null, 2)}\n`;
    case 'junit':
      return junitXml(results);
    case 'table':
      return terminalText(ctx, results, toFile);
  }
}

function terminalText(ctx: Context, results: readonly CheckResult[], toFile: boolean): string {
  const fit = tableFit(ctx.io, toFile);
  const sections = groupByTable(results).map(([table, rows]) => {
    const heading = fit.color ? fit.color.bold(table) : table;
    const body = renderTable(
      [...rows],
      [
        { header: 'STATUS', value: (row) => MARKS[row.status].mark, style: (color, text) => styleMark(color, text) },
        { header: 'CHECK', value: (row) => row.check, shrink: true },
        { header: 'OBSERVED', value: (row) => observedText(row), align: 'right' },
        { header: 'THRESHOLD', value: (row) => row.threshold, shrink: true },
        { header: 'DETAIL', value: (row) => detailText(row), shrink: true },
      ],
      fit,
    );
    return `${heading}\n${body}`;
  });
  return sections.length === 0 ? '' : `${sections.join('\n\n')}\n`;
}

function styleMark(color: ChalkInstance, text: string): string {
  const entry = Object.values(MARKS).find((each) => text.trim().startsWith(each.mark));
  return entry ? entry.style(color, text) : text;
}

/** What a person reads beside the figure: the drift or error, and the example rows. */
export function detailText(result: CheckResult): string {
  const parts = [result.message, result.examples.length > 0 ? `e.g. ${result.examples.join(', ')}` : null];
  return parts.filter((part): part is string => part !== null && part !== '').join('; ');
}

export function groupByTable(results: readonly CheckResult[]): Array<[string, CheckResult[]]> {
  const groups = new Map<string, CheckResult[]>();
  for (const result of results) groups.set(result.table, [...(groups.get(result.table) ?? []), result]);
  return [...groups];
}

/**
 * JUnit XML: <testsuites> of one <testsuite> per table, one <testcase> per check (classname: the
 * table); a fail is a <failure>, an error an <error>; a warn passes, with its figure in <system-out>.
 */
export function junitXml(results: readonly CheckResult[]): string {
  const counts = tally(results);
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="tds check" tests="${results.length}" failures="${counts.fail}" errors="${counts.error}" time="0">`,
  ];
  for (const [table, rows] of groupByTable(results)) {
    const suite = tally(rows);
    lines.push(
      `  <testsuite name="${xml(table)}" tests="${rows.length}" failures="${suite.fail}" errors="${suite.error}" skipped="0" time="0">`,
    );
    for (const row of rows) {
      const summary = `${row.check}: observed ${observedText(row)}, threshold ${row.threshold}${detailText(row) ? ` (${detailText(row)})` : ''}`;
      const open = `    <testcase name="${xml(row.check)}" classname="${xml(table)}" time="0"`;
      if (row.status === 'pass') lines.push(`${open}/>`);
      else if (row.status === 'warn') lines.push(`${open}>`, `      <system-out>warn: ${xml(summary)}</system-out>`, '    </testcase>');
      else {
        const element = row.status === 'fail' ? 'failure' : 'error';
        const message = row.status === 'fail' ? summary : (row.message ?? summary);
        lines.push(
          `${open}>`,
          `      <${element} message="${xml(message)}" type="${row.kind}">${xml(summary)}</${element}>`,
          '    </testcase>',
        );
      }
    }
    lines.push('  </testsuite>');
  }
  lines.push('</testsuites>', '');
  return lines.join('\n');
}

/** Text as XML character data or an attribute value: markup escaped, characters XML 1.0 cannot hold dropped. */
function xml(text: string): string {
  return text
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}
