import type { ChalkInstance } from 'chalk';
import { cellDisplay } from '../output/table.js';
import { count, daysText, fitText, instantText, rangeText, wrapParts } from './figure-text.js';
import type { TableStats } from './stats-report.js';
import { columnsSection } from './terminal-columns.js';
import { causesSection, heading, runStatesSection } from './terminal-runs.js';
import { sparkline } from './text-bars.js';
import { calendarDays } from './svg-charts.js';

// `tds stats` on a terminal: sections that read at a glance, sized to `width`, coloured when `color` is given.

export interface TerminalOptions {
  width: number;
  color?: ChalkInstance;
}

export function renderTerminalReport(stats: TableStats, options: TerminalOptions): string {
  const { width, color } = options;
  const sections = [
    headerLines(stats, width, color),
    [heading('Columns', color), columnsSection(stats.columns, width, color)],
    runStatesSection(stats.columns, width, color),
    causesSection(stats.columns, width, color),
  ].filter((lines) => lines.length > 0);
  return `${sections.map((lines) => lines.join('\n')).join('\n\n')}\n`;
}

function headerLines(stats: TableStats, width: number, color?: ChalkInstance): string[] {
  const { table } = stats;
  const title = cellDisplay(table.name);
  const facts = [
    cellDisplay(table.workspace),
    `${count(table.rows)} ${table.rows === 1 ? 'row' : 'rows'}`,
    `${count(table.columns)} ${table.columns === 1 ? 'column' : 'columns'}`,
    table.lastSync ? `synced ${instantText(table.lastSync)}` : 'never synced',
    ...(table.verifiedAt ? [`exact as of ${instantText(table.verifiedAt)}`] : []),
    `mirror table ${cellDisplay(table.mirrorTable)}`,
    ...(table.lake ? [`lake ${cellDisplay(table.lake)}`] : []),
  ];
  const lines = wrapParts([color ? color.bold(title) : title, ...facts], { width, indent: '  ', first: '', separator: ' · ' });
  if (table.firstCreatedAt && table.lastCreatedAt) lines.push(`created ${rangeText(table.firstCreatedAt, table.lastCreatedAt)}`);
  if (table.perDay.length > 0) {
    const peak = table.perDay.reduce((best, day) => (day.rows > best.rows ? day : best));
    const first = table.perDay[0]!.day;
    const last = table.perDay.at(-1)!.day;
    // one character a day from the first to the last: a day without rows is a gap
    const line = sparkline(calendarDays(table.perDay).map((day) => day.rows));
    const parts = [`${first} ${color ? color.cyan(line) : line} ${last}`, `peak ${count(peak.rows)} on ${peak.day}`];
    lines.push(
      fitText(`rows created per day (UTC), ${daysText(table.perDay.length)}:`, width),
      ...wrapParts(parts, { width, indent: '  ', separator: '  ' }),
    );
  }
  return lines;
}
