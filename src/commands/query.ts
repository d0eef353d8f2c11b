import type { Command } from 'commander';
import type { Context } from '../cli/context.js';
import { notImplementedCommand } from '../cli/not-implemented.js';

export function queryCommand(_ctx: Context): Command {
  return notImplementedCommand('query', 'export rows matching a search and filters');
}
