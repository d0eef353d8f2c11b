import type { Command } from 'commander';
import { buildProgram } from '../../src/program.js';
import { memoryContext } from './context.js';

/** The program's commands as built (not written out here, so a new command is checked as soon as it exists). */
export function programCommands(): readonly Command[] {
  return buildProgram(memoryContext().ctx).commands;
}
