// config.json: where it is (configDir, configFile: TDS_CONFIG_DIR or the platform's config folder), and
// reading and writing it (readConfig, writeConfig).

import { randomBytes } from 'node:crypto';
import { chmod, mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, posix, win32 } from 'node:path';
import { UsageError } from '../core/index.js';

/** config.json: named profiles, each a flat map of config keys (`base-url`, `webhook.NAME`, …) to text. */
export interface ConfigData {
  profiles: Record<string, Record<string, string>>;
}

function isConfigData(value: unknown): value is ConfigData {
  const isRecord = (item: unknown): item is Record<string, unknown> => typeof item === 'object' && item !== null && !Array.isArray(item);
  return (
    isRecord(value) &&
    isRecord(value.profiles) &&
    Object.values(value.profiles).every(
      (profile) => isRecord(profile) && Object.values(profile).every((setting) => typeof setting === 'string'),
    )
  );
}

export async function readConfig(file: string): Promise<ConfigData> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { profiles: Object.create(null) as ConfigData['profiles'] };
    throw new UsageError(`cannot read the config file ${file}: ${(error as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new UsageError(`the config file ${file} is not valid JSON`, { hint: 'fix it by hand or delete it' });
  }
  if (!isConfigData(parsed)) {
    throw new UsageError(`the config file ${file} is not a tds config (expected {"profiles": {NAME: {KEY: "text"}}})`, {
      hint: 'fix it by hand or delete it',
    });
  }
  return withoutPrototypes(parsed);
}

/** Profiles and settings as objects without a prototype: a profile named `__proto__` or `toString` is a name like any other. */
function withoutPrototypes(data: ConfigData): ConfigData {
  const profiles = Object.create(null) as ConfigData['profiles'];
  for (const [name, settings] of Object.entries(data.profiles)) profiles[name] = Object.assign(Object.create(null), settings);
  return { profiles };
}

/** Writes atomically (a temporary file renamed over the old one), file mode 0600, folder 0700 when created. */
export async function writeConfig(file: string, data: ConfigData): Promise<void> {
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  const handle = await open(temporary, 'wx', 0o600);
  try {
    await handle.writeFile(`${JSON.stringify(data, null, 2)}\n`, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await chmod(temporary, 0o600); // in case the umask took bits away or added none
    await rename(temporary, file);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
}

/**
 * The folder of config.json: TDS_CONFIG_DIR, else the platform's config folder
 * ($XDG_CONFIG_HOME/tds or ~/.config/tds; macOS ~/Library/Preferences/tds; Windows %APPDATA%\tds).
 */
export function configDir(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform, home = homedir()): string {
  if (env.TDS_CONFIG_DIR) return env.TDS_CONFIG_DIR;
  if (platform === 'win32') return win32.join(env.APPDATA || win32.join(home, 'AppData', 'Roaming'), 'tds');
  if (platform === 'darwin') return posix.join(home, 'Library', 'Preferences', 'tds');
  // The XDG spec says a relative XDG_CONFIG_HOME is invalid and must be ignored.
  const xdg = env.XDG_CONFIG_HOME && posix.isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : posix.join(home, '.config');
  return posix.join(xdg, 'tds');
}

export function configFile(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform, home = homedir()): string {
  const dir = configDir(env, platform, home);
  return (platform === 'win32' ? win32 : posix).join(dir, 'config.json');
}
