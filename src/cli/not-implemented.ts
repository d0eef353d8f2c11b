import { Command } from 'commander';
import { TdsError } from './errors.js';

/** Placeholder for a command whose issue has not landed: exits 1, never 0. */
export function notImplementedCommand(name: string, description: string): Command {
  return new Command(name)
    .description(`${description} (not implemented yet)`)
    .allowUnknownOption(true)
    .allowExcessArguments(true)
    .action(() => {
      throw new TdsError('UNEXPECTED', `${name}: not implemented yet`);
    });
}
