import { access } from 'node:fs/promises';
import { type Context, TdsError } from '../core/index.js';
import { openMirror, requireMirror, waitOn } from '../mirror/index.js';
import { writeWhole, tableFit } from '../output/table.js';
import { tableStats } from './figures.js';
import { createPageEncoder } from '../output/page-encoder.js';
import type { DataFormat } from '../output/index.js';
import type { OutputRecord } from '../records/index.js';
import { renderHtmlReport } from './html-report.js';
import type { ColumnStats, TableStats } from './stats-report.js';
import { renderTerminalReport } from './terminal-report.js';

export interface StatsRequest {
  /** TABLE: an ID, an exact name or a mirror table's name. */
  table: string;
  db: string;
  columns?: string[];
  top: number;
  format: StatsFormat;
  /** -o FILE; stdout when undefined */
  output?: string;
  /** Now on the service's clock, when the command synced first (staleness is measured on it, as verified_at is). */
  now?: number;
}

/**
 * DuckDB's buffer pool for the profile. The GROUP BYs of columns of a million different values keep
 * the process near 220 MB with it (a larger pool holds more, no faster: 250 MB at 160 MB, same time);
 * DuckDB spills beside the mirror if a statement needs more.
 */
const MEMORY_LIMIT = '100MB';

/** `tds stats` on the mirror as it is (the command syncs first unless --no-sync): the figures, printed or written to -o FILE. */
export async function runStats(ctx: Context, request: StatsRequest): Promise<void> {
  const exists = await access(request.db).then(
    () => true,
    () => false,
  );
  if (!exists) {
    throw new TdsError('NOT_FOUND', `there is no mirror ${request.db}`, {
      hint: `make it with \`tds sync TABLE --db ${request.db}\`, or leave out --no-sync and \`tds stats\` syncs the table first`,
    });
  }
  const db = await openMirror(request.db, { readOnly: true, memoryLimit: MEMORY_LIMIT, ...waitOn(ctx) });
  let text: string;
  try {
    await requireMirror(db);
    const stats = await tableStats(db.connection, {
      table: request.table,
      db: request.db,
      top: request.top,
      ...(request.columns ? { columns: request.columns } : {}),
      ...(request.now !== undefined ? { now: request.now } : {}),
    });
    text = statsText(ctx, stats, request.format, request.output !== undefined);
  } finally {
    db.close();
  }
  await writeText(ctx, text, request.output);
}

/** To stdout, or to FILE atomically. */
async function writeText(ctx: Context, text: string, output: string | undefined): Promise<void> {
  await writeWhole(ctx, () => Buffer.from(text), output);
  if (output !== undefined) ctx.io.stderr.write(`stats written to ${output}\n`);
}

// The stats in each format: `table` (sections for people), `json` ({table, columns}), `ndjson`,
// `csv` and `tsv` (one record per column, nested values as JSON text), `html` (the report page).

export type StatsFormat = DataFormat | 'table' | 'html';

/** The keys of a column's record, in order (the CSV header). */
export const COLUMN_RECORD_KEYS: ReadonlyArray<keyof ColumnStats> = [
  'key',
  'label',
  'type',
  'filled',
  'fill',
  'distinct',
  'top',
  'min',
  'max',
  'mean',
  'truncated',
  'states',
  'errors',
  'causes',
];

/** Width of a table written to a file or to a pipe without COLUMNS. */
const UNSIZED_WIDTH = 100;

export function statsText(ctx: Context, stats: TableStats, format: StatsFormat, toFile: boolean): string {
  switch (format) {
    case 'html':
      return renderHtmlReport(stats);
    case 'json':
      return `${JSON.stringify(stats, null, 2)}\n`;
    case 'table': {
      const fit = tableFit(ctx.io, toFile);
      return renderTerminalReport(stats, { ...fit, width: Number.isFinite(fit.width) ? fit.width : UNSIZED_WIDTH });
    }
    default: {
      const keys = [...COLUMN_RECORD_KEYS];
      const encoder = createPageEncoder({ format, keys });
      const records = stats.columns.map((column) => Object.fromEntries(keys.map((key) => [key, column[key]])) as OutputRecord);
      return Buffer.concat([encoder.prelude(), encoder.encode(records, 0), encoder.epilogue(records.length)]).toString('utf8');
    }
  }
}
