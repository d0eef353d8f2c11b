// `tds auth check`: the settings and where each comes from, then one request; its action is in auth-action.ts.

import { Command } from 'commander';
import type { Context } from '../core/options.js';
import { SUMMARIES } from './summaries.js';

export function authCommand(ctx: Context): Command {
  const auth = new Command('auth')
    .alias('doctor')
    .description(SUMMARIES.auth.description)
    .addHelpText('after', '\nExamples:\n  $ tds auth check\n  $ tds doctor --profile staging');

  const check = new Command('check')
    .description('verify the base URL, API key and subscription with one cheap request (GET /workspaces)')
    .addHelpText(
      'after',
      `
Exit codes: 0 all good, 2 no or bad base URL, 3 key missing or refused (401), 5 subscription paused (402),
6 service unreachable or failing.

Examples:
  $ tds auth check
  $ TDS_PROFILE=staging tds doctor
  $ tds auth check --base-url http://127.0.0.1:8787/v1 --api-key-file key.txt`,
    )
    .action(async (_options: unknown, cmd: Command) => {
      const { authCheckAction } = await import('./auth-action.js');
      await authCheckAction(ctx, cmd);
    });

  auth.addCommand(check, { isDefault: true });
  return auth;
}
