import { cellDisplay, displayWidth } from '../output/table.js';

// Figures and values as short text for people (the terminal and the HTML report alike).

export const count = (n: number): string => n.toLocaleString('en-US');

/** A share as a whole percent that never says 100% or 0% when it is not. */
export function percent(fraction: number): string {
  const rounded = Math.round(fraction * 100);
  if (rounded === 100 && fraction < 1) return '99%';
  if (rounded === 0 && fraction > 0) return '<1%';
  return `${rounded}%`;
}

export function numberText(value: number): string {
  return value.toLocaleString('en-US', { maximumFractionDigits: Math.abs(value) >= 1 ? 2 : 4 });
}

/** A value as one line of text: numbers grouped, objects as JSON, control characters replaced. */
export function valueText(value: unknown): string {
  if (value === null || value === undefined) return '∅';
  if (typeof value === 'number') return numberText(value);
  if (typeof value === 'string') return cellDisplay(value);
  return cellDisplay(JSON.stringify(value));
}

/** `2025-03-01 14:05 UTC` from ISO 8601 text. */
export function instantText(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

/** A range of instants by day, or by minute when it lies within one day. */
export function rangeText(min: string, max: string): string {
  if (min.slice(0, 10) === max.slice(0, 10)) return `${min.slice(0, 10)} ${min.slice(11, 16)} … ${max.slice(11, 16)} UTC`;
  return `${min.slice(0, 10)} … ${max.slice(0, 10)}`;
}

/** Text cut to `width` terminal columns, with … where it was cut. */
export function fitText(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  let out = '';
  let used = 0;
  for (const char of text) {
    const w = displayWidth(char);
    if (used + w > width - 1) break;
    out += char;
    used += w;
  }
  return `${out}…`;
}

/** Text cut to `chars` characters (code points), with … where it was cut. */
export function cutText(text: string, chars: number): string {
  const points = Array.from(text);
  return points.length <= chars ? text : `${points.slice(0, chars - 1).join('')}…`;
}

const stripAnsi = (text: string): string => text.replace(/\u001b\[[0-9;]*m/g, '');

/** Parts joined by `separator` into lines of at most `width` columns (colour codes take none); lines after the first start with `indent`. */
export function wrapParts(
  parts: readonly string[],
  options: { width: number; indent: string; separator: string; first?: string },
): string[] {
  const { width, indent, separator } = options;
  const lines: string[] = [];
  let line = '';
  let start = options.first ?? indent;
  for (const part of parts) {
    const candidate = line ? `${line}${separator}${part}` : part;
    if (line && displayWidth(stripAnsi(start + candidate)) > width) {
      lines.push(start + line);
      start = indent;
      line = part;
    } else line = candidate;
  }
  if (line) lines.push(start + line);
  return lines;
}

/** Which days `perDay` holds: `the last 30 days with rows`, `the one day with rows`. */
export function daysText(days: number): string {
  return days === 1 ? 'the one day with rows' : `the last ${count(days)} days with rows`;
}
