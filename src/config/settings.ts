import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { type Context, TdsError, UsageError, parseIntegerOption, parseNumberOption } from '../core/index.js';
import type { Format } from '../output/index.js';
// the proxy rule alone: http/index.ts would load the client, which a command that reads settings may not use
import { proxySettings, type ProxySettings } from '../http/proxy.js';
import { configKey, DEFAULT_PROFILE, KEY_STORE, notifyConfigKey, webhookConfigKey, webhookUrls } from './keys.js';
import { configFile, readConfig } from './store.js';
import { readSecret } from './read-secret.js';
import { KeychainUnavailable, keychainEnabled, readKeychainKey } from './keychain.js';

export interface Settings {
  baseUrl?: string;
  apiKey?: string;
  profile: string;
  defaultFormat?: Format;
  maxRetries?: number;
  timeoutMs?: number;
  /** TDS_RATE_SCALE, read here and nowhere else: serviceTimings (http/rate-limiter.ts) makes the client.s timings of it. */
  rateScale: number;
  /** The mirror file: --db, else TDS_DB, else the profile's `db`, else tds.duckdb. */
  db: string;
  /** HTTPS_PROXY, HTTP_PROXY, NO_PROXY (and their lower-case forms): for the service and the webhook. */
  proxy?: ProxySettings;
  /** The profile's `max-stale` (tds sync --max-stale when not given). */
  maxStale?: string;
  /** TDS_CHECKS, else the profile's `checks`: the checks file of `tds check` when none is given. */
  checks?: string;
  /** The lake folder of `tds sync`: --lake, else the profile's `lake`; none by default. */
  lake?: string;
  /** Submissions a webhook takes in its lifetime (the profile's `webhook-budget`; default 50,000; undefined: off). */
  webhookBudget?: number | undefined;
  /** Rows a table holds (the profile's `table-capacity`; default 50,000; undefined: off). */
  tableCapacity?: number | undefined;
}

/** Where the base URL and key came from, for messages (`--base-url`, `TDS_API_KEY`, `profile "work"`). */
export interface SettingsSources {
  baseUrl?: string;
  apiKey?: string;
  /** where the mirror file came from: `--db`, `TDS_DB`, the profile, or the default */
  db: string;
  /** where the checks file came from, when a setting gave one: `TDS_CHECKS` or the profile */
  checks?: string;
  configFile: string;
}

export const DEFAULT_DB = 'tds.duckdb';

/** Flag > environment > profile. */
export async function loadSettings(ctx: Context, command: Command): Promise<Settings> {
  return (await resolveSettings(ctx, command)).settings;
}

export async function resolveSettings(ctx: Context, command: Command): Promise<{ settings: Settings; sources: SettingsSources }> {
  const opts = command.optsWithGlobals() as Record<string, unknown>;
  const env = ctx.io.env;
  const file = configFile(env);
  const profileName = typeof opts.profile === 'string' && opts.profile !== '' ? opts.profile : DEFAULT_PROFILE;
  const config = await readConfig(file);
  const profile = config.profiles[profileName];
  if (!profile && profileName !== DEFAULT_PROFILE) {
    throw new UsageError(`no profile "${profileName}" in ${file}`, {
      hint: `create it with \`tds config set --profile ${profileName} base-url URL\`, or see \`tds config list\``,
    });
  }
  const fromProfile = (key: string): string | undefined => {
    const value = profile?.[key];
    return value === undefined ? undefined : configKey(key).normalize(value);
  };
  const profileLabel = `profile "${profileName}" (${file})`;
  const sources: SettingsSources = { configFile: file, db: `the default (${DEFAULT_DB} in the working folder)` };

  let baseUrl = typeof opts.baseUrl === 'string' && opts.baseUrl !== '' ? opts.baseUrl : undefined;
  if (baseUrl) sources.baseUrl = command.getOptionValueSourceWithGlobals('baseUrl') === 'env' ? 'TDS_BASE_URL' : '--base-url';
  else if ((baseUrl = fromProfile('base-url'))) sources.baseUrl = profileLabel;

  const apiKey = await resolveApiKey(ctx, opts, { name: profileName, label: profileLabel, settings: profile }, sources);

  const maxRetries =
    (opts.maxRetries as number | undefined) ??
    envNumber(env.TDS_MAX_RETRIES, parseIntegerOption('TDS_MAX_RETRIES', 0, 20)) ??
    numberOrUndefined(fromProfile('max-retries'));
  const timeoutSeconds = (opts.timeout as number | undefined) ?? numberOrUndefined(fromProfile('timeout'));
  const rateScale = envNumber(env.TDS_RATE_SCALE, parseNumberOption('TDS_RATE_SCALE', 0.001, 1_000_000)) ?? 1;

  const dbFlag = typeof opts.db === 'string' ? opts.db : undefined;
  const db = firstSet([dbFlag, '--db'], [env.TDS_DB, 'TDS_DB'], [fromProfile('db'), profileLabel]);
  const checks = firstSet([env.TDS_CHECKS, 'TDS_CHECKS'], [fromProfile('checks'), profileLabel]);
  Object.assign(sources, db && { db: db.from }, checks && { checks: checks.from });
  return {
    settings: {
      baseUrl,
      apiKey,
      profile: profileName,
      defaultFormat: fromProfile('default-format') as Format | undefined,
      maxRetries,
      timeoutMs: timeoutSeconds === undefined ? undefined : Math.round(timeoutSeconds * 1000),
      rateScale,
      db: db?.value ?? DEFAULT_DB,
      ...proxySettings(env),
      maxStale: fromProfile('max-stale'),
      ...(checks ? { checks: checks.value } : {}),
      ...lakeSetting(typeof opts.lake === 'string' && opts.lake !== '' ? opts.lake : fromProfile('lake')),
      ...serviceLimits(fromProfile),
    },
    sources,
  };
}

/** --api-key-file, else TDS_API_KEY, else the profile's key (in the OS keychain or the file); notes where it came from. */
async function resolveApiKey(
  ctx: Context,
  opts: Record<string, unknown>,
  profile: { name: string; label: string; settings: Record<string, string> | undefined },
  sources: SettingsSources,
): Promise<string | undefined> {
  const env = ctx.io.env;
  if (typeof opts.apiKeyFile === 'string') {
    sources.apiKey = `--api-key-file ${opts.apiKeyFile}`;
    return readKeyFile(ctx, opts.apiKeyFile);
  }
  if (env.TDS_API_KEY?.trim()) {
    sources.apiKey = 'TDS_API_KEY';
    return env.TDS_API_KEY.trim();
  }
  if (profile.settings?.[KEY_STORE] === 'keychain') {
    sources.apiKey = `${profile.label}, in the OS keychain`;
    return keyFromKeychain(env, profile.name);
  }
  const key = profile.settings?.['api-key'];
  if (key === undefined) return undefined;
  sources.apiKey = profile.label;
  return configKey('api-key').normalize(key);
}

/** The key `tds config set api-key` kept in the OS keychain for this profile; a clear AUTH error when it cannot be had. */
async function keyFromKeychain(env: NodeJS.ProcessEnv, profile: string): Promise<string> {
  const where = `the API key of profile "${profile}" is kept in the OS keychain`;
  const hint = 'set TDS_API_KEY or pass --api-key-file for this run; `tds config set api-key` stores the key anew';
  if (!keychainEnabled(env)) throw new TdsError('AUTH', `${where}, and TDS_KEYCHAIN=off`, { hint });
  let key: string | null;
  try {
    key = await readKeychainKey(profile);
  } catch (error) {
    if (!(error instanceof KeychainUnavailable)) throw error;
    throw new TdsError('AUTH', `${where}, which did not answer (${error.reason})`, { hint: `unlock it, or ${hint}` });
  }
  if (!key) throw new TdsError('AUTH', `${where}, but the keychain has no entry for it`, { hint });
  return key;
}

async function readKeyFile(ctx: Context, path: string): Promise<string> {
  if (path === '-') return readSecret(ctx.io, 'API key');
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`cannot read the API key file ${path}${code ? ` (${code})` : ''}`);
  }
  const key = text.trim();
  if (!key) throw new UsageError(`the API key file ${path} is empty`);
  return key;
}

/** The first of the candidates that is set (not blank), with where it came from. */
function firstSet(...candidates: Array<[string | undefined, string]>): { value: string; from: string } | undefined {
  for (const [value, from] of candidates) if (value?.trim()) return { value: value.trim(), from };
  return undefined;
}

function envNumber(raw: string | undefined, parse: (raw: string) => number): number | undefined {
  return raw === undefined || raw.trim() === '' ? undefined : parse(raw);
}

function numberOrUndefined(text: string | undefined): number | undefined {
  return text === undefined ? undefined : Number(text);
}

/** What production allows by default (issue 45): 50,000 submissions a webhook, 50,000 rows a table. */
const DEFAULT_SERVICE_LIMIT = 50_000;

function serviceLimits(fromProfile: (key: string) => string | undefined): Pick<Settings, 'webhookBudget' | 'tableCapacity'> {
  return {
    webhookBudget: limitSetting(fromProfile('webhook-budget'), DEFAULT_SERVICE_LIMIT),
    tableCapacity: limitSetting(fromProfile('table-capacity'), DEFAULT_SERVICE_LIMIT),
  };
}

/** `off` turns a limit off; none set is the default. */
function limitSetting(value: string | undefined, fallback: number): number | undefined {
  if (value === 'off') return undefined;
  return value === undefined ? fallback : Number(value);
}

function lakeSetting(lake: string | undefined): { lake?: string } {
  return lake === undefined ? {} : { lake };
}

/**
 * The URLs saved with `tds config set webhook.NAME` (`tds push @NAME`), in the order a push fills them;
 * `profile` defaults to TDS_PROFILE, then "default".
 */
export async function loadWebhooks(ctx: Context, name: string, profile?: string): Promise<string[]> {
  return webhookUrls(await loadWebhookText(ctx, name, profile));
}

/** Every webhook list saved in the profile (`webhook.NAME`), by name, its URLs in order. */
export async function savedWebhooks(ctx: Context, profile?: string): Promise<Array<{ name: string; urls: string[] }>> {
  const profileName = profile || ctx.io.env.TDS_PROFILE || DEFAULT_PROFILE;
  const settings = (await readConfig(configFile(ctx.io.env))).profiles[profileName] ?? {};
  const prefix = webhookConfigKey('');
  return Object.entries(settings)
    .filter(([key]) => key.startsWith(prefix))
    .map(([key, value]) => ({ name: key.slice(prefix.length), urls: webhookUrls(value) }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

async function loadWebhookText(ctx: Context, name: string, profile?: string): Promise<string> {
  const webhook = name.replace(/^@/, '');
  const profileName = profile || ctx.io.env.TDS_PROFILE || DEFAULT_PROFILE;
  const file = configFile(ctx.io.env);
  const config = await readConfig(file);
  const url = config.profiles[profileName]?.[webhookConfigKey(webhook)];
  if (!url) {
    throw new UsageError(`no webhook named "${webhook}" in profile "${profileName}" (${file})`, {
      hint: `save it with \`tds config set webhook.${webhook}\` (the URL is read from stdin or a hidden prompt)`,
    });
  }
  return url;
}

/** The URL saved with `tds config set notify.NAME` (`tds check --notify @NAME`): a secret, like a webhook URL. */
export async function loadNotifyUrl(ctx: Context, name: string, profile?: string): Promise<string> {
  const receiver = name.replace(/^@/, '');
  const profileName = profile || ctx.io.env.TDS_PROFILE || DEFAULT_PROFILE;
  const file = configFile(ctx.io.env);
  const url = (await readConfig(file)).profiles[profileName]?.[notifyConfigKey(receiver)];
  if (!url) {
    throw new UsageError(`no notification URL named "${receiver}" in profile "${profileName}" (${file})`, {
      hint: `save it with \`tds config set notify.${receiver}\` (the URL is read from stdin or a hidden prompt)`,
    });
  }
  return url;
}
