import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterEach, describe, expect } from 'vitest';
import { buildProgram } from '../../src/program.js';
import { connectWith } from '../../src/commands/connect.js';
import { resolveSettings, type Settings, loadWebhook } from '../../src/config/settings.js';
import { writeConfig } from '../../src/config/store.js';
import { testContext } from '../helpers/context.js';
import { test as it } from '../helpers/emulator-fixture.js';

const PROFILES = {
  default: {
    'base-url': 'https://default.example/v1',
    'api-key': 'key_from_profile',
    'default-format': 'json',
    timeout: '2',
    'max-retries': '1',
  },
  work: { 'base-url': 'https://work.example/v1', 'api-key': 'key_from_work', 'webhook.signups': 'https://hooks.example/w/abcdefgh1234' },
};

const COMMANDER_ENV = ['TDS_BASE_URL', 'TDS_PROFILE', 'TDS_TIMEOUT'];
let configDirPath: string;

it.beforeEach(async ({ tmp }) => {
  configDirPath = tmp;
  await writeConfig(join(configDirPath, 'config.json'), { profiles: PROFILES });
});
afterEach(() => {
  for (const name of COMMANDER_ENV) delete process.env[name];
});

/** Parses argv with the real program (its global options) and resolves settings in a probe command. */
async function resolveWith(argv: string[], env: NodeJS.ProcessEnv = {}, stdin?: string) {
  for (const name of COMMANDER_ENV) if (env[name] !== undefined) process.env[name] = env[name];
  const ctx = testContext({ TDS_CONFIG_DIR: configDirPath, ...env }, stdin);
  const program = buildProgram(ctx).exitOverride();
  let resolved: Awaited<ReturnType<typeof resolveSettings>> | undefined;
  program.addCommand(
    new Command('probe').action(async (_options, command: Command) => {
      resolved = await resolveSettings(ctx, command);
    }),
  );
  await program.parseAsync(['probe', ...argv], { from: 'user' });
  return resolved!;
}

describe('resolveSettings: flag > environment > profile', () => {
  it('takes everything from the default profile when nothing else is given', async () => {
    const { settings, sources } = await resolveWith([]);
    expect(settings).toEqual({
      baseUrl: 'https://default.example/v1',
      apiKey: 'key_from_profile',
      profile: 'default',
      defaultFormat: 'json',
      maxRetries: 1,
      timeoutMs: 2000,
      rateScale: 1,
      db: 'tds.duckdb',
      webhookBudget: 50_000,
      tableCapacity: 50_000,
    });
    expect(sources.baseUrl).toMatch(/^profile "default" \(/);
  });

  it('base URL: the environment beats the profile, the flag beats both', async () => {
    const env = { TDS_BASE_URL: 'https://env.example/v1' };
    expect((await resolveWith([], env)).sources.baseUrl).toBe('TDS_BASE_URL');
    expect((await resolveWith([], env)).settings.baseUrl).toBe('https://env.example/v1');
    const flagged = await resolveWith(['--base-url', 'https://flag.example/v1'], env);
    expect(flagged.settings.baseUrl).toBe('https://flag.example/v1');
    expect(flagged.sources.baseUrl).toBe('--base-url');
  });

  it('API key: --api-key-file beats TDS_API_KEY, which beats the profile', async () => {
    const keyFile = join(configDirPath, 'key.txt');
    await writeFile(keyFile, 'key_from_file\n');
    const env = { TDS_API_KEY: 'key_from_env' };
    expect((await resolveWith([], env)).settings.apiKey).toBe('key_from_env');
    const fromFile = await resolveWith(['--api-key-file', keyFile], env);
    expect(fromFile.settings.apiKey).toBe('key_from_file');
    expect(fromFile.sources.apiKey).toBe(`--api-key-file ${keyFile}`);
  });

  it('--api-key-file - reads the key from stdin', async () => {
    expect((await resolveWith(['--api-key-file', '-'], {}, 'key_from_stdin\n')).settings.apiKey).toBe('key_from_stdin');
  });

  it('a missing or empty key file is a usage error', async () => {
    await expect(resolveWith(['--api-key-file', join(configDirPath, 'none')])).rejects.toThrow(/cannot read the API key file .*\(ENOENT\)/);
    await writeFile(join(configDirPath, 'empty'), '\n');
    await expect(resolveWith(['--api-key-file', join(configDirPath, 'empty')])).rejects.toThrow(/is empty/);
  });

  it('--profile and TDS_PROFILE pick the profile; an unknown one is a usage error', async () => {
    expect((await resolveWith(['--profile', 'work'])).settings).toMatchObject({ profile: 'work', apiKey: 'key_from_work' });
    expect((await resolveWith([], { TDS_PROFILE: 'work' })).settings.baseUrl).toBe('https://work.example/v1');
    await expect(resolveWith(['--profile', 'nope'])).rejects.toMatchObject({
      code: 'USAGE',
      message: expect.stringMatching(/no profile "nope"/),
    });
  });

  it('max retries: flag > TDS_MAX_RETRIES > profile; timeout: flag/TDS_TIMEOUT seconds > profile', async () => {
    expect((await resolveWith([], { TDS_MAX_RETRIES: '4' })).settings.maxRetries).toBe(4);
    expect((await resolveWith(['--max-retries', '0'], { TDS_MAX_RETRIES: '4' })).settings.maxRetries).toBe(0);
    expect((await resolveWith(['--timeout', '0.5'])).settings.timeoutMs).toBe(500);
    expect((await resolveWith([], { TDS_TIMEOUT: '7' })).settings.timeoutMs).toBe(7000);
    await expect(resolveWith([], { TDS_MAX_RETRIES: 'lots' })).rejects.toThrow(/TDS_MAX_RETRIES must be a whole number/);
  });

  it('rate scale from TDS_RATE_SCALE, checked', async () => {
    expect((await resolveWith([], { TDS_RATE_SCALE: '50' })).settings.rateScale).toBe(50);
    await expect(resolveWith([], { TDS_RATE_SCALE: '0' })).rejects.toThrow(/TDS_RATE_SCALE must be a number/);
  });

  it('works with no config file at all', async () => {
    const { settings } = await resolveWith([], { TDS_CONFIG_DIR: join(configDirPath, 'missing') });
    expect(settings).toEqual({ profile: 'default', rateScale: 1, db: 'tds.duckdb', webhookBudget: 50_000, tableCapacity: 50_000 });
  });
});

describe('connectWith', () => {
  const ctx = testContext({});
  const base: Settings = { profile: 'default', rateScale: 1, db: 'tds.duckdb' };

  it.each<[string, Settings, string, RegExp]>([
    ['no base URL', { ...base, apiKey: 'k' }, 'USAGE', /no base URL is set/],
    ['plain http to a remote host', { ...base, baseUrl: 'http://remote.example/v1', apiKey: 'k' }, 'USAGE', /refusing plain http/],
    ['no key', { ...base, baseUrl: 'https://a.example/v1' }, 'AUTH', /no API key is set/],
  ])('%s is a clear error', (_name, settings, code, pattern) => {
    expect(() => connectWith(ctx, settings)).toThrow(expect.objectContaining({ code, message: expect.stringMatching(pattern) }));
  });

  it('says which flag, variable or config key to set', () => {
    expect(() => connectWith(ctx, base)).toThrow(
      expect.objectContaining({ hint: expect.stringMatching(/--base-url.*TDS_BASE_URL.*tds config set base-url/) }),
    );
  });

  it('returns a client for good settings', async () => {
    const client = connectWith(ctx, { ...base, baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'k' });
    await client.close();
  });
});

describe('loadWebhook', () => {
  it('finds a saved webhook by NAME or @NAME in the given profile', async () => {
    const ctx = testContext({ TDS_CONFIG_DIR: configDirPath });
    expect(await loadWebhook(ctx, '@signups', 'work')).toBe('https://hooks.example/w/abcdefgh1234');
    expect(await loadWebhook(testContext({ TDS_CONFIG_DIR: configDirPath, TDS_PROFILE: 'work' }), 'signups')).toBe(
      'https://hooks.example/w/abcdefgh1234',
    );
  });

  it('a missing webhook is a usage error saying how to save one', async () => {
    const ctx = testContext({ TDS_CONFIG_DIR: configDirPath });
    await expect(loadWebhook(ctx, '@signups')).rejects.toMatchObject({
      code: 'USAGE',
      message: 'no webhook named "signups" in profile "default" (' + join(configDirPath, 'config.json') + ')',
      hint: expect.stringContaining('tds config set webhook.signups'),
    });
  });
});
