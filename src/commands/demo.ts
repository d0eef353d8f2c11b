import type { Command } from 'commander';
import type { Context } from '../cli/context.js';
import { notImplementedCommand } from '../cli/not-implemented.js';

export function demoCommand(_ctx: Context): Command {
  return notImplementedCommand('demo', 'walk through the main jobs on the embedded emulator');
}
