import { readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { readConfig, writeConfig, configDir, configFile } from '../../src/config/store.js';
import { test as it } from '../helpers/emulator-fixture.js';
import { useTestFolder } from '../helpers/test-folder.js';

const folder = useTestFolder();
const tempDir = (): Promise<string> => folder.make('config');

describe('config store', () => {
  it('reads a missing file as no profiles', async () => {
    expect(await readConfig(join(await tempDir(), 'config.json'))).toEqual({ profiles: {} });
  });

  it('writes mode 0600 in a new folder of mode 0700, with no temporary file left', async () => {
    const dir = join(await tempDir(), 'nested', 'tds');
    const file = join(dir, 'config.json');
    const data = { profiles: { default: { 'base-url': 'https://a.example/v1', 'api-key': 'k' } } };
    await writeConfig(file, data);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    expect(await readdir(dir)).toEqual(['config.json']);
    expect(await readConfig(file)).toEqual(data);
  });

  it('tightens an existing file to 0600 when rewriting it', async () => {
    const file = join(await tempDir(), 'config.json');
    await writeFile(file, '{"profiles":{}}', { mode: 0o644 });
    await writeConfig(file, { profiles: { p: { timeout: '5' } } });
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ profiles: { p: { timeout: '5' } } });
  });

  it.each([
    ['not JSON', '{oops', /is not valid JSON/],
    ['the wrong shape', '{"profiles": {"a": {"k": 1}}}', /is not a tds config/],
  ])('a file with %s is a usage error naming the file', async (_name, text, pattern) => {
    const file = join(await tempDir(), 'config.json');
    await writeFile(file, text);
    await expect(readConfig(file)).rejects.toMatchObject({ code: 'USAGE', message: expect.stringMatching(pattern) });
    await expect(readConfig(file)).rejects.toThrow(file);
  });
});

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
