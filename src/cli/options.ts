import { Option, type Command } from 'commander';
import { UsageError } from './errors.js';
import { OUTPUT_FORMATS } from '../output/format.js';

// Option parsers shared by commands. They throw UsageError so bad flags exit 2 with a clear message.

export function parseIntegerOption(name: string, min: number, max: number) {
  return (raw: string): number => {
    const value = Number(raw);
    if (!/^-?\d+$/.test(raw.trim()) || !Number.isSafeInteger(value) || value < min || value > max) {
      throw new UsageError(`${name} must be a whole number from ${min} to ${max} (got "${raw}")`);
    }
    return value;
  };
}

export function parseNumberOption(name: string, min: number, max: number) {
  return (raw: string): number => {
    const value = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(value) || value < min || value > max) {
      throw new UsageError(`${name} must be a number from ${min} to ${max} (got "${raw}")`);
    }
    return value;
  };
}

/** `--format` and `-o FILE`, for commands that write data. */
export function addOutputOptions(command: Command): Command {
  return command
    .addOption(new Option('--format <format>', 'output format').choices(OUTPUT_FORMATS))
    .option('-o, --output <file>', 'write data to FILE (atomically); the format follows its extension');
}
