import type { ChalkInstance } from 'chalk';
import { cellDisplay, renderTable, type TableColumn, displayWidth } from '../output/table.js';
import { count, daysText, fitText, instantText, rangeText, wrapParts, cutText, numberText, percent, valueText } from './figure-text.js';
import { type TableStats, type ColumnStats, RUN_STATES, type RunState } from './stats-report.js';
import { calendarDays } from './svg-charts.js';
import { staleText } from '../mirror/index.js';

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
    ...(table.stale ? [color ? color.yellow(staleText(table)) : staleText(table)] : []),
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
    const spark = color ? color.cyan(line) : line;
    // one day: its date once, not on both sides of its one column
    const parts = [first === last ? `${first} ${spark}` : `${first} ${spark} ${last}`, `peak ${count(peak.rows)} on ${peak.day}`];
    lines.push(
      fitText(`rows created per day (UTC), ${daysText(table.perDay.length)}:`, width),
      ...wrapParts(parts, { width, indent: '  ', separator: '  ' }),
    );
  }
  return lines;
}

// The "Columns" section: one line per field with its fill bar, its counts, and what its values are
// (the most common ones; a number's range and mean; a date's range).

/** Fill bars are this wide on a terminal of 100 columns or more, narrower on a narrower one. */
const BAR_WIDTH = 12;
/** Most common values shown on a line (JSON has them all). */
const TOP_SHOWN = 5;
/** Characters of one value shown (a long text or object is cut with …). */
const VALUE_CHARS = 60;

export function columnsSection(columns: readonly ColumnStats[], width: number, color?: ChalkInstance): string {
  const bar = width >= 100 ? BAR_WIDTH : width >= 80 ? 10 : 6;
  const layout: Array<TableColumn<ColumnStats>> = [
    { header: 'column', value: (column) => column.key, shrink: true, style: (c, text) => c.bold(text) },
    { header: 'type', value: (column) => column.type, style: (c, text) => c.dim(text) },
    {
      header: 'fill',
      value: (column) => `${fillBar(column.fill, bar)} ${percent(column.fill).padStart(4)}`,
      style: (c, text) => c.cyan(text.slice(0, bar)) + text.slice(bar),
    },
    ...(width >= 80 ? [{ header: 'filled', value: (column: ColumnStats) => column.filled, align: 'right' as const }] : []),
    { header: 'distinct', value: (column) => column.distinct, align: 'right' },
    { header: 'values', value: valuesText, shrink: true, style: (c, text) => greyCounts(c, text) },
  ];
  return renderTable([...columns], layout, { width, ...(color ? { color } : {}) });
}

/** Before a top value's count, so that `+1 555 0101 ×3` does not read as one more digit. */
export const COUNT_MARK = '×';

/** The counts of the values line greyed, apart from the values. */
function greyCounts(color: ChalkInstance, text: string): string {
  return text.replace(/ (×[\d,]+)(?= ·|$)/g, (_, counted: string) => ` ${color.dim(counted)}`);
}

/** What a field's values are, in a line. */
export function valuesText(column: ColumnStats): string {
  const parts: string[] = [];
  if (column.truncated > 0) parts.push(`${count(column.truncated)} cut at 200 characters`);
  if (column.filled === 0) parts.push('empty');
  else if (column.type === 'number' && column.min !== null) {
    parts.push(`min ${numberText(Number(column.min))} · max ${numberText(Number(column.max))} · mean ${numberText(column.mean ?? 0)}`);
  } else if (column.type === 'date' && typeof column.min === 'string' && typeof column.max === 'string') {
    parts.push(rangeText(column.min, column.max));
  } else if (column.distinct === column.filled && column.type !== 'multi_select' && column.filled > 1) {
    parts.push(`all ${count(column.distinct)} different`);
  } else {
    parts.push(
      column.top
        .slice(0, TOP_SHOWN)
        .map(
          (entry) =>
            `${cutText(valueText(column.type === 'member' ? memberName(entry.value) : entry.value), VALUE_CHARS)} ${COUNT_MARK}${count(entry.count)}`,
        )
        .join(' · '),
    );
  }
  return parts.join(' · ');
}

/** A member (an object, or its JSON text in a mirror made by an earlier tds): people read its name. */
function memberName(value: unknown): unknown {
  let member = value;
  if (typeof value === 'string' && value.startsWith('{')) {
    try {
      member = JSON.parse(value) as unknown;
    } catch {
      return value;
    }
  }
  if (typeof member !== 'object' || member === null) return value;
  const { name, email } = member as { name?: unknown; email?: unknown };
  return typeof name === 'string' ? name : typeof email === 'string' ? email : value;
}

// The "Run states" section (a bar per action column, its counts under it) and the failure causes.

/**
 * Each state has its own character, with colour or without (skipped ≠ stopped, queued ≠ waiting), so
 * neither a monochrome terminal nor a colour-vision deficiency merges two states; the colours are
 * Okabe and Ito's, told apart with the common deficiencies.
 */
const GLYPH: Record<RunState, string> = {
  success: '█',
  failed: '▓',
  skipped: '░',
  stopped: '×',
  queued: '-',
  waiting: '~',
  running: '=',
  manual: '▒',
  none: '·',
};

type Paint = (color: ChalkInstance, text: string) => string;
export const STATE_PAINT: Record<RunState, Paint> = {
  success: (c, t) => c.hex('#009E73')(t),
  failed: (c, t) => c.hex('#D55E00')(t),
  skipped: (c, t) => c.gray(t),
  stopped: (c, t) => c.hex('#CC79A7')(t),
  queued: (c, t) => c.hex('#E69F00')(t),
  waiting: (c, t) => c.hex('#F0E442')(t),
  running: (c, t) => c.hex('#0072B2')(t),
  manual: (c, t) => c.hex('#56B4E9')(t),
  none: (c, t) => c.dim(t),
};

const INDENT = '  ';
/** Causes shown per column on the terminal (JSON lists up to 20). */
const CAUSES_SHOWN = 5;

export function runStatesSection(columns: readonly ColumnStats[], width: number, color?: ChalkInstance): string[] {
  const actions = columns.filter((column) => column.states !== null);
  if (actions.length === 0) return [];
  const keyWidth = Math.min(24, Math.max(...actions.map((column) => displayWidth(cellDisplay(column.key)))));
  const barWidth = Math.max(10, Math.min(60, width - keyWidth - INDENT.length * 2));
  const lines = [heading('Run states', color)];
  for (const column of actions) {
    const states = column.states!;
    const glyph = (state: RunState, text: string): string => (color ? STATE_PAINT[state](color, text) : text);
    const widths = proportionalWidths(
      RUN_STATES.map((state) => states[state]),
      barWidth,
    );
    const bar = RUN_STATES.map((state, i) => glyph(state, GLYPH[state].repeat(widths[i]!))).join('');
    const key = fitText(cellDisplay(column.key), keyWidth);
    lines.push(`${INDENT}${key}${' '.repeat(keyWidth - displayWidth(key))}${INDENT}${bar}`);
    const legend = RUN_STATES.filter((state) => states[state] > 0).map(
      (state) => `${glyph(state, GLYPH[state])} ${state} ${count(states[state])}`,
    );
    lines.push(...wrapParts(legend, { width, indent: INDENT.repeat(2) + ' '.repeat(keyWidth), separator: '  ' }));
  }
  return lines;
}

export function causesSection(columns: readonly ColumnStats[], width: number, color?: ChalkInstance): string[] {
  const lines: string[] = [];
  for (const column of columns) {
    if (!column.errors || column.errors.length === 0) continue;
    const causes = column.causes ?? column.errors.length;
    const title = `Failure causes: ${cellDisplay(column.key)} (${count(causes)} ${causes === 1 ? 'cause' : 'causes'})`;
    lines.push(heading(fitText(title, width), color));
    const shown = column.errors.slice(0, CAUSES_SHOWN);
    const countWidth = Math.max(...shown.map((cause) => count(cause.count).length));
    const pad = INDENT + ' '.repeat(countWidth + 2);
    for (const cause of shown) {
      const text = fitText(cellDisplay(cause.cause), width - pad.length);
      lines.push(`${INDENT}${count(cause.count).padStart(countWidth)}  ${color ? color.bold(text) : text}`);
      const example = cause.example === null ? '' : `e.g. ${cellDisplay(cause.example)}`;
      const rows = `rows ${cause.ids.map(cellDisplay).join(', ')}`;
      const detail = fitText(example ? `${example} · ${rows}` : rows, width - pad.length);
      lines.push(`${pad}${color ? color.dim(detail) : detail}`);
    }
    const rest = column.errors.slice(CAUSES_SHOWN).reduce((sum, cause) => sum + cause.count, 0);
    if (causes > shown.length) {
      const more = causes - shown.length;
      const listed = causes > column.errors.length;
      const cells = rest > 0 ? ` (${count(rest)}${listed ? '+' : ''} cells)` : '';
      const json = listed ? `--format json lists the first ${column.errors.length}` : '--format json lists them all';
      lines.push(fitText(`${pad}… ${count(more)} more ${more === 1 ? 'cause' : 'causes'}${cells}: ${json}`, width));
    }
  }
  return lines;
}

export function heading(text: string, color?: ChalkInstance): string {
  return color ? color.bold.underline(text) : text;
}

// Bars and sparklines drawn with block characters, for the terminal report. Pure: widths in, text out.

const EIGHTHS = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];
const SPARKS = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/** A bar `width` characters wide, filled to `fraction` (0–1) in eighths of a character; the rest `░`. */
export function fillBar(fraction: number, width: number): string {
  const eighths = Math.round(Math.min(1, Math.max(0, fraction)) * width * 8);
  const full = Math.floor(eighths / 8);
  const part = EIGHTHS[eighths % 8]!;
  return '█'.repeat(full) + part + '░'.repeat(width - full - (part ? 1 : 0));
}

/**
 * Splits `width` characters among counts in proportion (largest remainders), so the parts add up to
 * `width` and every non-zero count gets at least one character while there are characters to give.
 */
export function proportionalWidths(counts: readonly number[], width: number): number[] {
  const total = counts.reduce((sum, n) => sum + n, 0);
  if (total === 0 || width <= 0) return counts.map(() => 0);
  const shares = counts.map((n) => (n / total) * width);
  const widths = shares.map((share, i) => (counts[i]! > 0 ? Math.max(1, Math.floor(share)) : 0));
  let left = width - widths.reduce((sum, w) => sum + w, 0);
  const byRemainder = shares.map((share, i) => ({ i, rest: share - Math.floor(share) })).sort((a, b) => b.rest - a.rest || a.i - b.i);
  for (let k = 0; left > 0 && byRemainder.length > 0; k = (k + 1) % byRemainder.length) {
    const { i } = byRemainder[k]!;
    if (counts[i]! > 0) {
      widths[i]! += 1;
      left -= 1;
    }
  }
  // a count's minimum of one may have given away more than there was: take back from the widest
  while (left < 0) {
    const widest = widths.indexOf(Math.max(...widths));
    widths[widest]! -= 1;
    left += 1;
  }
  return widths;
}

/** One character per value, its height in eighths of the largest; a zero is a space. */
export function sparkline(values: readonly number[]): string {
  const max = Math.max(0, ...values);
  return values
    .map((value) => (value <= 0 || max === 0 ? ' ' : SPARKS[Math.min(7, Math.max(0, Math.ceil((value / max) * 8) - 1))]!))
    .join('');
}
