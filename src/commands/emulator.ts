import type { Command } from 'commander';
import type { Context } from '../cli/context.js';
import { notImplementedCommand } from '../cli/not-implemented.js';

export function emulatorCommand(_ctx: Context): Command {
  return notImplementedCommand('emulator', 'run the local emulator of the service');
}
