import { Option, type Command } from 'commander';
import { EXPORT_FORMATS } from '../output/format.js';

/** `--format` and `-o FILE`, for commands that write data. */
export function addOutputOptions(command: Command): Command {
  return command
    .addOption(new Option('--format <format>', 'output format').choices(EXPORT_FORMATS))
    .option('-o, --output <file>', 'write data to FILE (atomically); the format follows its extension');
}
