import type { Command } from 'commander';
import type { Context } from '../cli/context.js';
import { notImplementedCommand } from '../cli/not-implemented.js';

export function workspacesCommand(_ctx: Context): Command {
  return notImplementedCommand('workspaces', 'list the workspaces of the organization');
}
