import type { Command } from 'commander';
import type { Context } from '../cli/context.js';
import { notImplementedCommand } from '../cli/not-implemented.js';

export function rowsCommand(_ctx: Context): Command {
  return notImplementedCommand('rows', 'export every row of a table');
}
