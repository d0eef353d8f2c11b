import { extname } from 'node:path';
import type { Command } from 'commander';
import { type Context, UsageError } from '../core/index.js';
import { loadSettings } from '../config/index.js';
import { parseColumnList } from '../export/index.js';
import { pickTable } from '../records/index.js';
import { syncBeforeReading } from '../mirror/index.js';
import { checkOutputTarget, formatFromPath } from '../output/index.js';
import { runStats, type StatsFormat, DEFAULT_TOP } from '../stats/index.js';
import { requireService, withClient } from './connect.js';

// The action of `tds stats`: syncs the table first (requireService), then profiles it over the mirror and
// writes to stdout or -o FILE in the format its extension names.

export interface StatsOptions {
  db?: string;
  /** false with --no-sync */
  sync: boolean;
  columns?: string;
  top?: number;
  format?: StatsFormat;
  output?: string;
}

export async function statsAction(ctx: Context, table: string, options: StatsOptions, command: Command): Promise<void> {
  const output = options.output === '-' ? undefined : options.output;
  const format = options.format ?? (output ? statsFormatOfFile(output) : ctx.io.stdoutIsTTY ? 'table' : 'json');
  const columns = options.columns === undefined ? undefined : await parseColumnList(options.columns);
  if (output) await checkOutputTarget(output);
  const settings = await loadSettings(ctx, command);
  let ref = table;
  let now: number | undefined;
  if (options.sync) requireService(settings, 'tds stats syncs the table', 'profile the mirror as it is');
  if (options.sync) {
    ref = await withClient(ctx, settings, async (client) => {
      const found = pickTable((await client.tables()).tables, table);
      await syncBeforeReading(ctx, client, settings.db, [found.id]);
      now = client.serviceNow();
      return found.id;
    });
  }
  await runStats(ctx, {
    table: ref,
    db: settings.db,
    top: options.top ?? DEFAULT_TOP,
    format,
    ...(columns ? { columns } : {}),
    ...(output ? { output } : {}),
    ...(now !== undefined ? { now } : {}),
  });
}

/** -o FILE's format: .html and .htm are the report page; the others as for exports (.txt: the terminal's table). */
function statsFormatOfFile(path: string): StatsFormat {
  const extension = extname(path).toLowerCase();
  if (extension === '.html' || extension === '.htm') return 'html';
  if (extension === '.txt') return 'table';
  const format = formatFromPath(path);
  if (format) return format;
  throw new UsageError(`cannot tell the format of "${path}" from its extension`, {
    hint: 'use an extension of .html .json .ndjson .jsonl .csv .tsv .txt, or give --format',
  });
}
