import type { Command } from 'commander';
import type { Context } from '../cli/context.js';
import { notImplementedCommand } from '../cli/not-implemented.js';

export function configCommand(_ctx: Context): Command {
  return notImplementedCommand('config', 'manage profiles: base URL, API key, defaults');
}
