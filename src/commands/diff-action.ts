// The action of `tds diff`.

import type { Command } from 'commander';
import type { Context } from '../core/index.js';
import { loadSettings } from '../config/index.js';
import { chooseFormat, type Format } from '../output/index.js';

export interface DiffOptions {
  since?: string;
  until?: string;
  summary?: boolean;
  db?: string;
  format?: Format;
  output?: string;
}

export async function diffAction(ctx: Context, table: string, options: DiffOptions, command: Command): Promise<void> {
  const settings = await loadSettings(ctx, command);
  const output = options.output === '-' ? undefined : options.output;
  const format = chooseFormat({
    ...(options.format ? { format: options.format } : {}),
    ...(output ? { output } : {}),
    fallback: ctx.io.stdoutIsTTY ? 'table' : 'ndjson',
  });
  const { runDiff } = await import('../mirror/diff/index.js');
  await runDiff(ctx, {
    db: settings.db,
    table,
    ...(options.since !== undefined ? { since: options.since } : {}),
    ...(options.until !== undefined ? { until: options.until } : {}),
    format,
    ...(output ? { output } : {}),
    summary: Boolean(options.summary),
  });
}
