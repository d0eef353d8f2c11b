import { text } from 'node:stream/consumers';
import type { Command } from 'commander';
import { type Context, UsageError } from '../core/index.js';
import { loadSettings } from '../config/index.js';
import { runSql } from '../mirror/index.js';
import { chooseFormat, type Format } from '../output/index.js';

export interface SqlOptions {
  db?: string;
  format?: Format | 'parquet';
  output?: string;
  write?: boolean;
  files?: boolean;
}

export async function sqlAction(ctx: Context, query: string | undefined, options: SqlOptions, command: Command): Promise<void> {
  const sql = query === '-' ? await text(ctx.io.stdin) : query;
  if (sql === undefined || sql.trim() === '') {
    throw new UsageError('no SQL statement given', { hint: 'e.g. tds sql "SELECT * FROM leads LIMIT 5", or - to read it from stdin' });
  }
  const settings = await loadSettings(ctx, command);
  const output = options.output === '-' ? undefined : options.output;
  const parquet = options.format === 'parquet' || (!options.format && output?.toLowerCase().endsWith('.parquet'));
  const format = parquet
    ? 'parquet'
    : chooseFormat({
        ...(options.format ? { format: options.format as Format } : {}),
        ...(output ? { output } : {}),
        fallback: ctx.io.stdoutIsTTY ? 'table' : 'csv',
      });
  await runSql(ctx, {
    sql,
    db: settings.db,
    format,
    ...(output ? { output } : {}),
    write: Boolean(options.write),
    files: Boolean(options.files),
  });
}
