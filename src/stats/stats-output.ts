import type { Context } from '../core/context.js';
import { tableFit } from '../output/table.js';
import { createPageEncoder } from '../output/page-encoder.js';
import type { DataFormat } from '../output/format.js';
import type { OutputRecord } from '../records/row-shaper.js';
import { renderHtmlReport } from './html-report.js';
import type { ColumnStats, TableStats } from './stats-report.js';
import { renderTerminalReport } from './terminal-report.js';

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
