import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import Table from 'cli-table3';
import { get as getEmoji } from 'node-emoji';
import type { ChalkInstance } from 'chalk';
import type { Context } from '../core/index.js';
import { createAtomicFile, type FileOpener, claimOutput } from './atomic-file.js';
import type { Format } from './format.js';
import { createPageEncoder } from './page-encoder.js';
import { OutputWriteError, asWriteError } from './write-error.js';

// `--format table`: an aligned, borderless table for people (gh-style), sized to the terminal, paged when
// longer than it (writePaged); and the one writer of the listing commands (workspaces, tables, schema),
// which picks table or a data format.

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

/**
 * How a table is drawn where it goes: to a terminal (or a pipe given COLUMNS), fitted to its width; to
 * another pipe or a file, whole cells. Coloured only when stdout itself is a terminal: colorEnabled also
 * holds when only stderr is one, and `tds tables | less` must get plain text.
 */
export function tableFit(io: Context['io'], toFile: boolean): RenderOptions {
  const sized = !toFile && (io.stdoutIsTTY || Boolean(io.env.COLUMNS));
  const color = !toFile && io.colorEnabled && io.stdoutIsTTY ? io.color : undefined;
  return { width: sized ? io.terminalWidth : Infinity, ...(color ? { color } : {}) };
}

// Measure text exactly as cli-table3 lays it out: with the string-width it depends on.
const requireFromTable = createRequire(createRequire(import.meta.url).resolve('cli-table3'));
const stringWidth = requireFromTable('string-width') as (text: string) => number;

/** Columns a text takes on a terminal (wide characters and emoji count 2), as cli-table3 measures it. */
export const displayWidth = (text: string): number => stringWidth(text);

/** Spaces between two columns. */
export const GAP = 2;
/** A column cut to fit is never narrower than this (or its natural width). */
export const MIN_SHRUNK_WIDTH = 8;
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

export interface ListingLayout<T> {
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
  /** Opens the temporary file of `-o` (tests give one whose writes fail); the system's by default. */
  open?: FileOpener;
}

/** Writes the service's objects unchanged (csv/tsv/ndjson/json) or as a table, to stdout or atomically to a file. */
export async function writeListing<T extends object>(ctx: Context, items: T[], spec: ListingLayout<T>): Promise<void> {
  const path = spec.output && spec.output !== '-' ? spec.output : undefined;
  await writeWhole(ctx, (toFile) => listingText(ctx, items, spec, toFile), path, spec.open);
}

/**
 * Output made whole in memory: to stdout, or to `path` through a temporary file renamed when complete
 * (claimed, so no other tds command writes it meanwhile). `text` is told which of the two it is for.
 */
export async function writeWhole(
  ctx: Context,
  text: (toFile: boolean) => Buffer,
  path: string | undefined,
  open?: FileOpener,
): Promise<void> {
  if (!path) {
    await writeChunk(ctx.io.stdout, text(false), 'stdout');
    return;
  }
  const lock = await claimOutput(path, 'another tds command');
  try {
    const file = await createAtomicFile(path, { fresh: true, ...(open ? { open } : {}) });
    // A failed write also calls back with its error, which is what is reported.
    file.stream.on('error', () => undefined);
    try {
      await writeChunk(file.stream, text(true), file.partialPath);
      await file.commit().catch((error: unknown) => {
        throw asWriteError(file.partialPath, error);
      });
    } catch (error) {
      await file.discard();
      throw error;
    }
  } finally {
    await lock.release();
  }
}

/** The whole listing: a table (the empty message goes to stderr instead), or the objects in a data format. */
function listingText<T extends object>(ctx: Context, items: T[], spec: ListingLayout<T>, toFile: boolean): Buffer {
  if (spec.format !== 'table') {
    const encoder = createPageEncoder({ format: spec.format, keys: spec.fields });
    const records = items as unknown as Array<Record<string, unknown>>;
    return Buffer.concat([encoder.prelude(), encoder.encode(records, 0), encoder.epilogue(records.length)]);
  }
  if (items.length === 0) {
    ctx.io.stderr.write(`${spec.emptyMessage}\n`);
    return Buffer.alloc(0);
  }
  const footer = spec.footer?.(items);
  return Buffer.from(`${renderTable(items, spec.columns, tableFit(ctx.io, toFile))}\n${footer ? `${footer}\n` : ''}`);
}

/** Writes `chunk` and resolves once the system has taken it; a refused write is an OutputWriteError of `target`. */
export function writeChunk(sink: NodeJS.WritableStream, chunk: Buffer, target: string): Promise<void> {
  if (chunk.length === 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    sink.write(chunk, (error?: Error | null) => (error ? reject(new OutputWriteError(target, error)) : resolve()));
  });
}

// A table longer than the terminal goes through a pager, as gh does: TDS_PAGER, else PAGER, else
// `less -FRX` (which quits by itself when the text fits one screen, keeps colour and leaves the text
// on the screen). Never when stdout is not a terminal; TDS_PAGER='' or `cat` turns it off.

/** The pager command for this run, or undefined when none is used. */
export function pagerCommand(io: Context['io']): string | undefined {
  if (!io.stdoutIsTTY) return undefined;
  const command = (io.env.TDS_PAGER ?? io.env.PAGER ?? 'less -FRX').trim();
  return command === '' || command === 'cat' ? undefined : command;
}

/**
 * Writes `text` to stdout, through the pager when one is set and the text has more lines than the
 * terminal. A pager that cannot start (not installed) leaves the text written as it is.
 */
export async function writePaged(ctx: Pick<Context, 'io'>, text: string): Promise<void> {
  const { io } = ctx;
  const command = pagerCommand(io);
  const height = (io.stdout as { rows?: number }).rows || Number(io.env.LINES) || 24;
  if (!command || text.split('\n').length <= height) {
    io.stdout.write(text);
    return;
  }
  // the process's own stdout is the terminal the pager draws on; another stream (a test's) gets its output
  const own = io.stdout === process.stdout;
  const child = spawn(command, { shell: true, stdio: ['pipe', own ? 'inherit' : 'pipe', 'inherit'], env: { LESS: 'FRX', ...io.env } });
  child.stdout?.on('data', (chunk: Buffer) => io.stdout.write(chunk));
  child.stdin!.on('error', () => undefined); // the pager quit before reading everything (q in less)
  const started = await Promise.race([once(child, 'spawn').then(() => true), once(child, 'error').then(() => false)]);
  if (!started) {
    io.stdout.write(text);
    return;
  }
  child.stdin!.end(text);
  await once(child, 'close');
}
