// `tds demo`: a guided tour on an emulator started in-process; its action is in demo-action.ts, its steps
// in demo-steps.ts.

import { Command } from 'commander';
import type { Context } from '../core/options.js';
import type { DemoOptions } from './demo-action.js';
import { SUMMARIES } from './summaries.js';

/** `tds demo`: a guided tour of tds on an emulator started in-process. */
export function demoCommand(ctx: Context): Command {
  return new Command('demo')
    .description(SUMMARIES.demo.description)
    .option('--dir <folder>', 'where the demo writes its files (default: a new temporary folder)')
    .option('--keep-running', 'leave the emulator running afterwards, and print how to use it from another terminal')
    .addHelpText(
      'after',
      `
Examples:
  tds demo
  tds demo --dir ./tds-demo
  tds demo --keep-running`,
    )
    .action(async (options: DemoOptions) => {
      const { demoAction } = await import('./demo-action.js');
      await demoAction(ctx, options);
    });
}
