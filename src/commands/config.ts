// Profiles and the key: `tds config` (set, get, unset, list, path); its actions are in config-action.ts.

import { Command } from 'commander';
import type { Context } from '../core/options.js';
import { configKeyHelp } from '../config/options.js';
import { SUMMARIES } from './summaries.js';

const configHelp = (): string => `
Keys:
${configKeyHelp()}

Secrets (api-key, webhook.NAME) are read from stdin or a hidden prompt, never from the command line,
and shown only redacted. The API key goes to the OS keychain where one answers (else, or with
TDS_KEYCHAIN=off, to the file). The file is config.json in TDS_CONFIG_DIR or the platform config folder,
mode 0600. Settings resolve as: flag, then environment, then the profile (--profile / TDS_PROFILE,
default "default").

Examples:
  $ tds config set base-url https://api.example.com/v1
  $ tds config set api-key < ~/secrets/tds-key.txt
  $ tds config list --profile staging`;

export function configCommand(ctx: Context): Command {
  const config = new Command('config').description(SUMMARIES.config.description).addHelpText('after', () => configHelp());

  config
    .command('set')
    .description('save a key in the profile (secrets come from stdin or a hidden prompt)')
    .argument('<key>', 'base-url, api-key, default-format, max-retries, timeout or webhook.NAME')
    .argument('[value]', 'the value (not for secrets)')
    .option('--add', 'webhook.NAME: append the URL(s) read to those saved, instead of replacing them')
    .addHelpText(
      'after',
      '\nA webhook name holds a list: a table can have several webhooks, and `tds push @NAME` fills them in order,\n' +
        'going on with the next once one has used its budget (webhook-budget). Give the URLs one a line or\n' +
        'comma-separated, or add one later with --add.\n' +
        '\nExamples:\n  $ tds config set default-format json\n  $ pbpaste | tds config set webhook.signups\n' +
        '  $ tds config set webhook.leads < leads-webhooks.txt     # several URLs, one a line\n' +
        '  $ pbpaste | tds config set webhook.leads --add          # a new webhook of the table, filled after the others',
    )
    .action(async (name: string, value: string | undefined, options: { add?: boolean }, cmd: Command) => {
      const { configSet } = await import('./config-action.js');
      await configSet(ctx, name, value, cmd, options);
    });

  config
    .command('get')
    .description('print a key of the profile (secrets redacted)')
    .argument('<key>')
    .addHelpText('after', '\nExamples:\n  $ tds config get base-url\n  $ tds config get api-key --profile staging')
    .action(async (name: string, _options: unknown, cmd: Command) => {
      const { configGet } = await import('./config-action.js');
      await configGet(ctx, name, cmd);
    });

  config
    .command('unset')
    .description('remove a key from the profile')
    .argument('<key>')
    .addHelpText('after', '\nExamples:\n  $ tds config unset default-format\n  $ tds config unset webhook.signups --profile staging')
    .action(async (name: string, _options: unknown, cmd: Command) => {
      const { configUnset } = await import('./config-action.js');
      await configUnset(ctx, name, cmd);
    });

  config
    .command('list')
    .description('show every profile (or the one of --profile), secrets redacted')
    .addHelpText('after', '\nExamples:\n  $ tds config list\n  $ TDS_PROFILE=staging tds config list')
    .action(async (_options: unknown, cmd: Command) => {
      const { configList } = await import('./config-action.js');
      await configList(ctx, cmd);
    });

  config.addCommand(migrateKeyCommand(ctx));

  config
    .command('path')
    .description('print the path of the config file')
    .action(async () => void ctx.io.stdout.write(`${(await import('../config/index.js')).configFile(ctx.io.env)}\n`));

  return config;
}

function migrateKeyCommand(ctx: Context): Command {
  return new Command('migrate-key')
    .description("move the profile's API key into the OS keychain (or back to the config file)")
    .option('--to <store>', 'keychain or file', 'keychain')
    .addHelpText('after', '\nExamples:\n  $ tds config migrate-key\n  $ tds config migrate-key --to file --profile ci')
    .action(async (options: { to: string }, cmd: Command) => {
      const { configMigrateKey } = await import('./config-action.js');
      await configMigrateKey(ctx, options.to, cmd);
    });
}
