import { describe, expect, it } from 'vitest';
import { configDir, configFile } from '../../src/config/paths.js';

describe('configDir', () => {
  it.each<[string, NodeJS.ProcessEnv, NodeJS.Platform, string]>([
    ['TDS_CONFIG_DIR wins everywhere', { TDS_CONFIG_DIR: '/x/tds', XDG_CONFIG_HOME: '/xdg' }, 'linux', '/x/tds'],
    ['XDG_CONFIG_HOME on Linux', { XDG_CONFIG_HOME: '/xdg' }, 'linux', '/xdg/tds'],
    ['a relative XDG_CONFIG_HOME is ignored', { XDG_CONFIG_HOME: 'rel' }, 'linux', '/home/u/.config/tds'],
    ['~/.config on Linux', {}, 'linux', '/home/u/.config/tds'],
    ['~/Library/Preferences on macOS', { XDG_CONFIG_HOME: '/xdg' }, 'darwin', '/home/u/Library/Preferences/tds'],
    ['%APPDATA% on Windows', { APPDATA: 'C:\\Users\\u\\AppData\\Roaming' }, 'win32', 'C:\\Users\\u\\AppData\\Roaming\\tds'],
  ])('%s', (_name, env, platform, expected) => {
    expect(configDir(env, platform, '/home/u')).toBe(expected);
  });

  it('names config.json in that folder', () => {
    expect(configFile({ TDS_CONFIG_DIR: '/x/tds' }, 'linux')).toBe('/x/tds/config.json');
    expect(configFile({ APPDATA: 'C:\\A' }, 'win32', 'C:\\u')).toBe('C:\\A\\tds\\config.json');
  });
});
