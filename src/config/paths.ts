import { homedir } from 'node:os';
import { posix, win32 } from 'node:path';

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
