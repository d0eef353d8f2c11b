import type { Command } from 'commander';
import { type Context, UsageError } from '../core/index.js';
import {
  configKey,
  displayValue,
  redactKey,
  configFile,
  readConfig,
  writeConfig,
  type ConfigData,
  readSecret,
  DEFAULT_PROFILE,
  KEY_STORE,
  resolveSettings,
  KeychainUnavailable,
  keychainEnabled,
  readKeychainKey,
  removeKeychainKey,
  writeKeychainKey,
  type KeyStore,
} from '../config/index.js';

// The actions of `tds config set|get|unset|list`.

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
  if (name === 'api-key') {
    await storeKey(ctx, { file, profile, data }, stored, keychainEnabled(ctx.io.env) ? 'keychain' : 'file');
    return;
  }
  data.profiles[profile] = { ...data.profiles[profile], [name]: stored };
  await writeConfig(file, data);
  say(ctx, `saved ${name} = ${displayValue(name, stored)} in profile "${profile}" (${file})`);
}

/**
 * Keeps the profile's API key where asked: in the OS keychain (config.json then only says so), or in
 * config.json (mode 0600). A keychain that does not answer leaves the key in the file, said once, here.
 */
async function storeKey(ctx: Context, at: Pick<Target, 'file' | 'profile' | 'data'>, key: string, wanted: KeyStore): Promise<KeyStore> {
  const { file, profile, data } = at;
  const settings: Record<string, string> = { ...data.profiles[profile] };
  const wasInKeychain = settings[KEY_STORE] === 'keychain';
  let store: KeyStore = 'file';
  if (wanted === 'keychain') {
    try {
      await writeKeychainKey(profile, key);
      store = 'keychain';
    } catch (error) {
      if (!(error instanceof KeychainUnavailable)) throw error;
      say(ctx, `no OS keychain answered (${error.reason}): the key is kept in ${file} (mode 0600) instead`);
    }
  }
  if (store === 'keychain') {
    delete settings['api-key'];
    settings[KEY_STORE] = 'keychain';
  } else {
    settings['api-key'] = key;
    delete settings[KEY_STORE];
  }
  data.profiles[profile] = settings;
  await writeConfig(file, data);
  // once the file no longer names the keychain, its entry is nobody's: remove it
  if (store === 'file' && wasInKeychain) await removeKeychainKey(profile).catch(() => false);
  const where = store === 'keychain' ? 'the OS keychain' : file;
  say(ctx, `saved api-key = ${redactKey(key)} in profile "${profile}" (${where})`);
  return store;
}

/** `tds config migrate-key [--to keychain|file]`: moves the profile's key; never done without being asked. */
export async function configMigrateKey(ctx: Context, to: string, cmd: Command): Promise<void> {
  if (to !== 'keychain' && to !== 'file') throw new UsageError(`--to must be keychain or file (got "${to}")`);
  const { file, profile, data } = await target(ctx, cmd);
  const settings = data.profiles[profile] ?? {};
  const inKeychain = settings[KEY_STORE] === 'keychain';
  if ((to === 'keychain') === inKeychain) {
    say(ctx, `the API key of profile "${profile}" is already in ${inKeychain ? 'the OS keychain' : file}`);
    return;
  }
  if (to === 'keychain') {
    const key = settings['api-key'];
    if (!key) throw new UsageError(`profile "${profile}" has no API key in ${file}`, { hint: 'save one with `tds config set api-key`' });
    if (!keychainEnabled(ctx.io.env)) throw new UsageError('TDS_KEYCHAIN=off: the OS keychain is not to be used');
    if ((await storeKey(ctx, { file, profile, data }, key, 'keychain')) !== 'keychain') {
      throw new UsageError('the key was not moved: it stays in the file', { hint: 'unlock or start the OS keychain and run this again' });
    }
    return;
  }
  let key: string | null;
  try {
    key = await readKeychainKey(profile);
  } catch (error) {
    if (!(error instanceof KeychainUnavailable)) throw error;
    throw new UsageError(`the OS keychain did not answer (${error.reason}): the key was not moved`);
  }
  if (!key)
    throw new UsageError(`the OS keychain has no API key for profile "${profile}"`, { hint: 'save one with `tds config set api-key`' });
  await storeKey(ctx, { file, profile, data }, key, 'file');
}

export async function configGet(ctx: Context, name: string, cmd: Command): Promise<void> {
  configKey(name);
  const { file, profile, data } = await target(ctx, cmd);
  if (name === 'api-key' && data.profiles[profile]?.[KEY_STORE] === 'keychain') {
    const { settings } = await resolveSettings(ctx, cmd);
    ctx.io.stdout.write(`${redactKey(settings.apiKey ?? '')}\n`);
    say(ctx, `(kept in the OS keychain)`);
    return;
  }
  const value = data.profiles[profile]?.[name];
  if (value === undefined) throw new UsageError(`${name} is not set in profile "${profile}" (${file})`);
  ctx.io.stdout.write(`${displayValue(name, value)}\n`);
}

export async function configUnset(ctx: Context, name: string, cmd: Command): Promise<void> {
  configKey(name);
  const { file, profile, data } = await target(ctx, cmd);
  const settings = data.profiles[profile];
  if (name === 'api-key' && settings?.[KEY_STORE] === 'keychain') {
    await removeKeychainKey(profile).catch((error: unknown) => {
      if (!(error instanceof KeychainUnavailable)) throw error;
      throw new UsageError(`the OS keychain did not answer (${error.reason}): the key was not removed`);
    });
    delete settings[KEY_STORE];
    if (Object.keys(settings).length === 0) delete data.profiles[profile];
    await writeConfig(file, data);
    say(ctx, `removed api-key from the OS keychain for profile "${profile}"`);
    return;
  }
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
