import type { Command } from 'commander';
import type { Context } from '../cli/context.js';
import { notImplementedCommand } from '../cli/not-implemented.js';

export function schemaCommand(_ctx: Context): Command {
  return notImplementedCommand('schema', 'show the columns of a table');
}
