import type { Command } from 'commander';
import type { Context } from './core/index.js';
import {
  schemaCommand,
  tablesCommand,
  workspacesCommand,
  queryCommand,
  rowsCommand,
  pushCommand,
  webhooksCommand,
  emulatorCommand,
  demoCommand,
  configCommand,
  authCommand,
  completionCommand,
  sqlCommand,
  diffCommand,
  syncCommand,
  lakeCommand,
  statsCommand,
  checkCommand,
  mcpCommand,
  finishProgram,
  rootCommand,
} from './commands/index.js';

// The command tree: the root (commands/root.ts) with every command, for help, completion and a run that
// names no single command (commands/root.ts programFor builds the others).

export function buildProgram(ctx: Context): Command {
  const program = rootCommand();
  // Command definitions are light: each action imports its implementation, so a run loads only its own modules.
  for (const make of [
    workspacesCommand,
    tablesCommand,
    schemaCommand,
    rowsCommand,
    queryCommand,
    pushCommand,
    webhooksCommand,
    syncCommand,
    sqlCommand,
    statsCommand,
    checkCommand,
    mcpCommand,
    diffCommand,
    lakeCommand,
    emulatorCommand,
    demoCommand,
    configCommand,
    authCommand,
    completionCommand,
  ]) {
    program.addCommand(make(ctx));
  }
  return finishProgram(program, ctx);
}
