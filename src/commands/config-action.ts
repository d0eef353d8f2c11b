import type { Command } from 'commander';
import type { Context } from '../core/context.js';
import { UsageError, TdsError } from '../core/errors.js';
import { configKey, displayValue, redactKey } from '../config/keys.js';
import { configFile, readConfig, writeConfig, type ConfigData } from '../config/store.js';
import { readSecret } from '../config/read-secret.js';
import { DEFAULT_PROFILE, resolveSettings } from '../config/settings.js';
import { connectWith } from './client.js';
import { errorCodeOf } from '../http/errors.js';

// The actions of `tds config set|get|unset|list` and `tds auth check`.

interface Target {
  file: string;
  profile: string;
  /** --profile or TDS_PROFILE was given. */
  explicit: boolean;
  data: ConfigData;
}

async function target(ctx: Context, cmd: Command): Promise<Target> {
  const opts = cmd.optsWithGlobals() as { profile?: string };
  const file = configFile(ctx.io.env);
  return { file, profile: opts.profile || DEFAULT_PROFILE, explicit: Boolean(opts.profile), data: await readConfig(file) };
}

function say(ctx: Context, line: string): void {
  ctx.io.stderr.write(`${line}\n`);
}

export async function configSet(ctx: Context, name: string, value: string | undefined, cmd: Command): Promise<void> {
  const key = configKey(name);
  if (key.secret && value !== undefined) {
    const why = 'it would stay in shell history and the process list';
    throw new UsageError(`${name} is never taken from the command line (${why})`, {
      hint: `run \`tds config set ${name}\` and paste it at the prompt, or pipe it: \`tds config set ${name} < FILE\``,
    });
  }
  if (!key.secret && value === undefined) throw new UsageError(`give a value: tds config set ${name} VALUE`);
  const stored = key.normalize(key.secret ? await readSecret(ctx.io, name) : value!);
  const { file, profile, data } = await target(ctx, cmd);
  data.profiles[profile] = { ...data.profiles[profile], [name]: stored };
  await writeConfig(file, data);
  say(ctx, `saved ${name} = ${displayValue(name, stored)} in profile "${profile}" (${file})`);
}

export async function configGet(ctx: Context, name: string, cmd: Command): Promise<void> {
  configKey(name);
  const { file, profile, data } = await target(ctx, cmd);
  const value = data.profiles[profile]?.[name];
  if (value === undefined) throw new UsageError(`${name} is not set in profile "${profile}" (${file})`);
  ctx.io.stdout.write(`${displayValue(name, value)}\n`);
}

export async function configUnset(ctx: Context, name: string, cmd: Command): Promise<void> {
  configKey(name);
  const { file, profile, data } = await target(ctx, cmd);
  const settings = data.profiles[profile];
  if (settings?.[name] === undefined) {
    say(ctx, `${name} was not set in profile "${profile}"`);
    return;
  }
  delete settings[name];
  if (Object.keys(settings).length === 0) delete data.profiles[profile];
  await writeConfig(file, data);
  say(ctx, `removed ${name} from profile "${profile}" (${file})`);
}

export async function configList(ctx: Context, cmd: Command): Promise<void> {
  const { file, profile, explicit, data } = await target(ctx, cmd);
  if (explicit && !data.profiles[profile]) throw new UsageError(`no profile "${profile}" in ${file}`);
  const names = explicit ? [profile] : Object.keys(data.profiles).sort();
  if (names.length === 0) {
    say(ctx, `no settings saved yet (${file})`);
    return;
  }
  const blocks = names.map((name) => {
    const entries = Object.entries(data.profiles[name] ?? {}).sort(([a], [b]) => a.localeCompare(b));
    return [`[${name}]`, ...entries.map(([key, value]) => `${key} = ${displayValue(key, value)}`)].join('\n');
  });
  ctx.io.stdout.write(`${blocks.join('\n\n')}\n`);
}

const AUTH_CHECK_RETRIES = 1;

/** `tds auth check`: what the settings are and where each comes from, then one request. */
export async function authCheckAction(ctx: Context, cmd: Command): Promise<void> {
  const { settings, sources } = await resolveSettings(ctx, cmd);
  const say = (label: string, text: string): void => void ctx.io.stderr.write(`${label.padEnd(9)} ${text}\n`);
  say('base URL', settings.baseUrl ? `${settings.baseUrl} (from ${sources.baseUrl})` : 'not set');
  say('API key', settings.apiKey ? `${redactKey(settings.apiKey)} (from ${sources.apiKey})` : 'not set');
  const client = connectWith(ctx, settings, { maxRetries: settings.maxRetries ?? AUTH_CHECK_RETRIES });
  try {
    const started = performance.now();
    const { workspaces } = await client.workspaces();
    const ms = Math.round(performance.now() - started);
    const count = `${workspaces.length} workspace${workspaces.length === 1 ? '' : 's'}`;
    say(ctx.io.color.green('ok'), `key accepted, subscription active; the organization has ${count} (${ms} ms)`);
  } catch (error) {
    throw explain(error, sources.baseUrl);
  } finally {
    await client.close();
  }
}

/** The client's error, told as an answer to "is my set-up right?". */
function explain(error: unknown, baseUrlSource: string | undefined): unknown {
  if (!(error instanceof TdsError)) return error;
  if (error.code === 'AUTH') {
    return new TdsError('AUTH', `the service refused the API key (HTTP ${error.status ?? 401})`, {
      ...(error.reason ? { reason: error.reason } : {}),
      cause: error,
    });
  }
  if (error.code === 'PAUSED') {
    const message = `the API key is valid but the organization's subscription is paused (HTTP ${error.status ?? 402})`;
    return new TdsError('PAUSED', message, {
      hint: 'an admin can resume the subscription in the app; until then every key request answers 402',
      cause: error,
    });
  }
  const code = errorCodeOf(error.cause);
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'UND_ERR_CONNECT_TIMEOUT') {
    return new TdsError(error.code, `cannot reach the service: ${error.message}`, {
      hint: `is the service running at that address? the base URL comes from ${baseUrlSource ?? 'nowhere'}`,
      cause: error,
    });
  }
  return error;
}
