import type { Command } from 'commander';
import type { Context } from '../cli/context.js';
import { notImplementedCommand } from '../cli/not-implemented.js';

export function authCommand(_ctx: Context): Command {
  return notImplementedCommand('auth', 'check the base URL, API key and subscription');
}
