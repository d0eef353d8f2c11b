import { createRequire } from 'node:module';
import Table from 'cli-table3';
import { get as getEmoji } from 'node-emoji';
import type { ChalkInstance } from 'chalk';
import type { Context } from '../core/context.js';
import { createAtomicFile } from './atomic-file.js';
import type { Format } from './format.js';
import { createRecordWriter } from './record-writer.js';

// `--format table`: an aligned, borderless table for people (gh-style), sized to the terminal; and the
// one writer of the listing commands (workspaces, tables, schema), which picks table or a data format.

export interface TableColumn<T> {
  header: string;
  value(item: T): string | number | null | undefined;
  /** Counts are right-aligned. */
  align?: 'left' | 'right';
  /** May be cut (with …) to fit the terminal; IDs and counts never are. */
  shrink?: boolean;
  /** Colour for the cells of this column, applied only when colour is on. */
  style?: (color: ChalkInstance, text: string) => string;
}

export interface RenderOptions {
  /** Total width available; Infinity for a file. */
  width: number;
  /** Present only when colour is on. */
  color?: ChalkInstance;
}

// Measure text exactly as cli-table3 lays it out: with the string-width it depends on.
const requireFromTable = createRequire(createRequire(import.meta.url).resolve('cli-table3'));
const stringWidth = requireFromTable('string-width') as (text: string) => number;

const GAP = 2;
const MIN_SHRUNK_WIDTH = 8;
const NO_BORDERS = {
  top: '',
  'top-mid': '',
  'top-left': '',
  'top-right': '',
  bottom: '',
  'bottom-mid': '',
  'bottom-left': '',
  'bottom-right': '',
  left: '',
  'left-mid': '',
  mid: '',
  'mid-mid': '',
  right: '',
  'right-mid': '',
  middle: ' '.repeat(GAP),
};

export function renderTable<T>(items: T[], columns: TableColumn<T>[], options: RenderOptions): string {
  const cells = items.map((item) => columns.map((column) => cellDisplay(column.value(item))));
  const natural = columns.map((column, i) => Math.max(stringWidth(column.header), ...cells.map((row) => stringWidth(row[i]!))));
  const budget = options.width - GAP * (columns.length - 1);
  const widths = fitWidths(
    natural,
    columns.map((column) => Boolean(column.shrink)),
    budget,
  );
  const { color } = options;
  const table = new Table({
    head: columns.map((column) => (color ? color.bold(column.header) : column.header)),
    chars: NO_BORDERS,
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0 },
    colAligns: columns.map((column) => column.align ?? 'left'),
    colWidths: widths,
    wordWrap: false,
  });
  for (const row of cells) {
    table.push(row.map((text, i) => (color && columns[i]!.style ? columns[i]!.style(color, text) : text)));
  }
  return table
    .toString()
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n');
}

/**
 * Column widths that fit `budget`: the widest shrinkable column gives up a character at a time,
 * never below MIN_SHRUNK_WIDTH (or its natural width). When even that does not fit, lines run long.
 */
export function fitWidths(natural: number[], shrinkable: boolean[], budget: number): number[] {
  const widths = [...natural];
  let excess = widths.reduce((sum, width) => sum + width, 0) - budget;
  while (excess > 0) {
    let widest = -1;
    for (let i = 0; i < widths.length; i += 1) {
      if (shrinkable[i] && widths[i]! > MIN_SHRUNK_WIDTH && (widest < 0 || widths[i]! > widths[widest]!)) widest = i;
    }
    if (widest < 0) break;
    widths[widest]! -= 1;
    excess -= 1;
  }
  return widths;
}

/** Text for a terminal cell: one line, no control characters (a name must not drive the terminal). */
export function cellDisplay(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return value.toLocaleString('en-US');
  return value.replace(/[\t\n\r]+/g, ' ').replace(/[\u0000-\u001f\u007f-\u009f]/g, '\uFFFD');
}

/** `:rocket:` → 🚀; an unknown shortcode stays as written; null → ''. */
export function emojiFor(shortcode: string | null | undefined): string {
  if (!shortcode) return '';
  return getEmoji(shortcode) ?? shortcode;
}

export interface ListingSpec<T> {
  format: Format;
  /** `-o FILE` (`-` or absent: stdout). */
  output?: string;
  /** Keys of the service's objects in the spec's order: the CSV/TSV header. */
  fields: string[];
  columns: TableColumn<T>[];
  /** Said on stderr instead of an empty table. */
  emptyMessage: string;
  /** Lines under the table (notes on markers). */
  footer?: (items: T[]) => string | undefined;
}

/** Writes the service's objects unchanged (csv/tsv/ndjson/json) or as a table, to stdout or atomically to a file. */
export async function writeListing<T extends object>(ctx: Context, items: T[], spec: ListingSpec<T>): Promise<void> {
  const file = spec.output && spec.output !== '-' ? await createAtomicFile(spec.output) : undefined;
  const sink = file?.stream ?? ctx.io.stdout;
  try {
    if (spec.format === 'table') {
      if (items.length === 0) {
        ctx.io.stderr.write(`${spec.emptyMessage}\n`);
      } else {
        // A pipe without COLUMNS gets whole cells (`tds tables | grep …`); a terminal gets a fitted table.
        const sized = !file && (ctx.io.stdoutIsTTY || Boolean(ctx.io.env.COLUMNS));
        const width = sized ? ctx.io.terminalWidth : Infinity;
        // colorEnabled also holds when only stderr is a terminal: `tds tables | less` must get plain text.
        const color = !file && ctx.io.colorEnabled && ctx.io.stdoutIsTTY ? ctx.io.color : undefined;
        const footer = spec.footer?.(items);
        sink.write(`${renderTable(items, spec.columns, { width, color })}\n${footer ? `${footer}\n` : ''}`);
      }
    } else {
      const writer = createRecordWriter(sink, { format: spec.format, columns: spec.fields });
      for (const item of items) await writer.write(item as Record<string, unknown>);
      await writer.end();
    }
    await file?.commit();
  } catch (error) {
    await file?.discard();
    throw error;
  }
}
