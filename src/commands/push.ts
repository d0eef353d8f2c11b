import type { Command } from 'commander';
import type { Context } from '../cli/context.js';
import { notImplementedCommand } from '../cli/not-implemented.js';

export function pushCommand(_ctx: Context): Command {
  return notImplementedCommand('push', 'send CSV, TSV, NDJSON or JSON records into the webhook of a table');
}
