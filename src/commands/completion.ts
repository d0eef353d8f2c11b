import type { Command } from 'commander';
import type { Context } from '../cli/context.js';
import { notImplementedCommand } from '../cli/not-implemented.js';

export function completionCommand(_ctx: Context): Command {
  return notImplementedCommand('completion', 'print a shell completion script');
}
