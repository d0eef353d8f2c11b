import { Command } from 'commander';
import type { Context } from '../cli/context.js';
import { UsageError } from '../cli/errors.js';
import { configKey, configKeyHelp, displayValue } from '../config/keys.js';
import { configFile } from '../config/paths.js';
import { readSecret } from '../config/read-secret.js';
import { DEFAULT_PROFILE } from '../config/settings.js';
import { readConfig, writeConfig, type ConfigData } from '../config/store.js';

interface Target {
  file: string;
  profile: string;
  /** --profile or TDS_PROFILE was given. */
  explicit: boolean;
  data: ConfigData;
}

export function configCommand(ctx: Context): Command {
  const target = async (cmd: Command): Promise<Target> => {
    const opts = cmd.optsWithGlobals() as { profile?: string };
    const file = configFile(ctx.io.env);
    return { file, profile: opts.profile || DEFAULT_PROFILE, explicit: Boolean(opts.profile), data: await readConfig(file) };
  };
  const say = (line: string): void => void ctx.io.stderr.write(`${line}\n`);

  const config = new Command('config')
    .description('manage profiles in the config file: base URL, API key, default format, saved webhooks')
    .addHelpText(
      'after',
      `
Keys:
${configKeyHelp()}

Secrets (api-key, webhook.NAME) are read from stdin or a hidden prompt, never from the command line,
and shown only redacted. The file is config.json in TDS_CONFIG_DIR or the platform config folder,
mode 0600. Settings resolve as: flag, then environment, then the profile (--profile / TDS_PROFILE,
default "default").

Examples:
  $ tds config set base-url https://api.example.com/v1
  $ tds config set api-key < ~/secrets/tds-key.txt
  $ tds config list --profile staging`,
    );

  config
    .command('set')
    .description('save a key in the profile (secrets come from stdin or a hidden prompt)')
    .argument('<key>', 'base-url, api-key, default-format, max-retries, timeout or webhook.NAME')
    .argument('[value]', 'the value (not for secrets)')
    .addHelpText('after', '\nExamples:\n  $ tds config set default-format json\n  $ pbpaste | tds config set webhook.signups')
    .action(async (name: string, value: string | undefined, _options: unknown, cmd: Command) => {
      const key = configKey(name);
      if (key.secret && value !== undefined) {
        const why = 'it would stay in shell history and the process list';
        throw new UsageError(`${name} is never taken from the command line (${why})`, {
          hint: `run \`tds config set ${name}\` and paste it at the prompt, or pipe it: \`tds config set ${name} < FILE\``,
        });
      }
      if (!key.secret && value === undefined) throw new UsageError(`give a value: tds config set ${name} VALUE`);
      const stored = key.normalize(key.secret ? await readSecret(ctx.io, name) : value!);
      const { file, profile, data } = await target(cmd);
      data.profiles[profile] = { ...data.profiles[profile], [name]: stored };
      await writeConfig(file, data);
      say(`saved ${name} = ${displayValue(name, stored)} in profile "${profile}" (${file})`);
    });

  config
    .command('get')
    .description('print a key of the profile (secrets redacted)')
    .argument('<key>')
    .addHelpText('after', '\nExamples:\n  $ tds config get base-url\n  $ tds config get api-key --profile staging')
    .action(async (name: string, _options: unknown, cmd: Command) => {
      configKey(name);
      const { file, profile, data } = await target(cmd);
      const value = data.profiles[profile]?.[name];
      if (value === undefined) throw new UsageError(`${name} is not set in profile "${profile}" (${file})`);
      ctx.io.stdout.write(`${displayValue(name, value)}\n`);
    });

  config
    .command('unset')
    .description('remove a key from the profile')
    .argument('<key>')
    .addHelpText('after', '\nExamples:\n  $ tds config unset default-format\n  $ tds config unset webhook.signups --profile staging')
    .action(async (name: string, _options: unknown, cmd: Command) => {
      configKey(name);
      const { file, profile, data } = await target(cmd);
      const settings = data.profiles[profile];
      if (settings?.[name] === undefined) {
        say(`${name} was not set in profile "${profile}"`);
        return;
      }
      delete settings[name];
      if (Object.keys(settings).length === 0) delete data.profiles[profile];
      await writeConfig(file, data);
      say(`removed ${name} from profile "${profile}" (${file})`);
    });

  config
    .command('list')
    .description('show every profile (or the one of --profile), secrets redacted')
    .addHelpText('after', '\nExamples:\n  $ tds config list\n  $ TDS_PROFILE=staging tds config list')
    .action(async (_options: unknown, cmd: Command) => {
      const { file, profile, explicit, data } = await target(cmd);
      if (explicit && !data.profiles[profile]) throw new UsageError(`no profile "${profile}" in ${file}`);
      const names = explicit ? [profile] : Object.keys(data.profiles).sort();
      if (names.length === 0) {
        say(`no settings saved yet (${file})`);
        return;
      }
      const blocks = names.map((name) => {
        const entries = Object.entries(data.profiles[name] ?? {}).sort(([a], [b]) => a.localeCompare(b));
        return [`[${name}]`, ...entries.map(([key, value]) => `${key} = ${displayValue(key, value)}`)].join('\n');
      });
      ctx.io.stdout.write(`${blocks.join('\n\n')}\n`);
    });

  config
    .command('path')
    .description('print the path of the config file')
    .action(() => void ctx.io.stdout.write(`${configFile(ctx.io.env)}\n`));

  return config;
}
