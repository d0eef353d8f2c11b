import type { ChalkInstance } from 'chalk';
import { cellDisplay, displayWidth } from '../output/table.js';
import { count, fitText, wrapParts } from './figure-text.js';
import { RUN_STATES, type ColumnStats, type RunState } from './stats-report.js';
import { proportionalWidths } from './text-bars.js';

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
