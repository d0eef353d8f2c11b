import type { Command } from 'commander';
import type { Context } from '../cli/context.js';
import { notImplementedCommand } from '../cli/not-implemented.js';

export function tablesCommand(_ctx: Context): Command {
  return notImplementedCommand('tables', 'list tables');
}
