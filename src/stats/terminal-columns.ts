import type { ChalkInstance } from 'chalk';
import { renderTable, type TableColumn } from '../output/table.js';
import { count, cutText, numberText, percent, rangeText, valueText } from './figure-text.js';
import type { ColumnStats } from './stats-report.js';
import { fillBar } from './text-bars.js';

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
