import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import type { RunOptions } from '../helpers/cli.js';
import { runInProcess } from '../helpers/run-in-process.js';
import { expectNoSecret } from './read-support.js';
import { test as it, type Harness } from '../helpers/emulator-fixture.js';
import { useTestFolder } from '../helpers/test-folder.js';

const folder = useTestFolder();

// `tds config`: profiles on disk (mode 0600), secrets never from argv and shown only redacted,
// and the read commands using what was saved.

let emulator: Harness;
it.override({ harnessOptions: { spawned: {} } });
it.beforeAll(({ harness }) => {
  emulator = harness;
});

const WEBHOOK = 'http://127.0.0.1:9/v1/webhook/Zq8fK2mLxP0aWbN7vR3sT6yU';

/** tds with its own config folder and no TDS_BASE_URL / TDS_API_KEY. */
async function configured() {
  const dir = join(await folder.make('config-e2e'), 'tds');
  const tds = async (args: string[], options: RunOptions = {}) => {
    const result = await runInProcess(args, { ...options, env: { TDS_CONFIG_DIR: dir, ...options.env } });
    expectNoSecret(result, emulator.apiKey);
    expectNoSecret(result, WEBHOOK);
    return result;
  };
  return { dir, file: join(dir, 'config.json'), tds };
}

describe('tds config', () => {
  it('saves a profile in a 0600 file the read commands then use', async () => {
    const { dir, file, tds } = await configured();
    expect((await tds(['config', 'set', 'base-url', emulator.baseUrl])).code).toBe(0);
    const setKey = await tds(['config', 'set', 'api-key'], { input: `${emulator.apiKey}\n` });
    expect(setKey.code, setKey.stderr).toBe(0);
    expect(setKey.stderr).toMatch(/saved api-key = \*\*\*\*\w{4} in profile "default"/);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    expect(JSON.parse(await readFile(file, 'utf8')).profiles.default['api-key']).toBe(emulator.apiKey);

    const listed = await tds(['workspaces', '--format', 'ndjson', '--verbose']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout.trim().split('\n')).toHaveLength(3);
  });

  it('never takes the API key or a webhook URL from argv', async () => {
    const { file, tds } = await configured();
    const key = await tds(['config', 'set', 'api-key', emulator.apiKey]);
    expect(key.code, key.stderr).toBe(2);
    expect(key.stderr).toMatch(/api-key is never taken from the command line/);
    const hook = await tds(['config', 'set', 'webhook.signups', WEBHOOK]);
    expect(hook.code, hook.stderr).toBe(2);
    await expect(stat(file)).rejects.toMatchObject({ code: 'ENOENT' });
    const flag = await tds(['workspaces', '--api-key', emulator.apiKey]);
    expect(flag.code, flag.stderr).toBe(2);
    expect(flag.stderr).toMatch(/unknown option '--api-key'/);
  });

  it('get and list show secrets redacted; unset removes', async () => {
    const { tds } = await configured();
    await tds(['config', 'set', 'api-key'], { input: emulator.apiKey });
    await tds(['config', 'set', 'webhook.signups'], { input: `${WEBHOOK}\n` });
    await tds(['config', 'set', '--profile', 'staging', 'default-format', 'json']);

    const key = await tds(['config', 'get', 'api-key']);
    expect(key.stdout).toBe(`****${emulator.apiKey.slice(-4)}\n`);
    const list = await tds(['config', 'list']);
    expect(list.stdout).toBe(
      `[default]\napi-key = ****${emulator.apiKey.slice(-4)}\nwebhook.signups = http://127.0.0.1:9/v1/webhook/…T6yU\n\n[staging]\ndefault-format = json\n`,
    );
    expect((await tds(['config', 'list', '--profile', 'staging'])).stdout).toBe('[staging]\ndefault-format = json\n');

    expect((await tds(['config', 'unset', 'webhook.signups'])).code).toBe(0);
    const gone = await tds(['config', 'get', 'webhook.signups']);
    expect(gone.code, gone.stderr).toBe(2);
    expect(gone.stderr).toMatch(/webhook\.signups is not set in profile "default"/);
  });

  it('flag beats environment beats profile', async () => {
    const { tds } = await configured();
    expect((await tds(['config', 'set', 'base-url', 'http://127.0.0.1:9/v1'])).code).toBe(0); // nothing listens there
    expect((await tds(['config', 'set', 'api-key'], { input: emulator.apiKey })).code).toBe(0);
    // the profile alone is used (connection refused, exit 6), so the runs below show what beats it
    const viaProfile = await tds(['workspaces', '--max-retries', '0']);
    expect(viaProfile.code, viaProfile.stderr).toBe(6);
    const viaEnv = await tds(['workspaces', '--max-retries', '0'], { env: { TDS_BASE_URL: emulator.baseUrl } });
    expect(viaEnv.code, viaEnv.stderr).toBe(0);
    const viaFlag = await tds(['workspaces', '--base-url', emulator.baseUrl], { env: { TDS_BASE_URL: 'http://127.0.0.1:9/v1' } });
    expect(viaFlag.code, viaFlag.stderr).toBe(0);
    const wrongEnvKey = await tds(['workspaces'], { env: { TDS_BASE_URL: emulator.baseUrl, TDS_API_KEY: 'tds_wrong_0000' } });
    expect(wrongEnvKey.code, wrongEnvKey.stderr).toBe(3);
  });

  it('default-format applies when --format is not given', async () => {
    const { tds } = await configured();
    await tds(['config', 'set', '--profile', 'ci', 'base-url', emulator.baseUrl]);
    await tds(['config', 'set', '--profile', 'ci', 'api-key'], { input: emulator.apiKey });
    await tds(['config', 'set', '--profile', 'ci', 'default-format', 'json']);
    const result = await tds(['workspaces'], { env: { TDS_PROFILE: 'ci' } });
    expect(result.stderr).toBe('');
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toHaveLength(3);
  });

  it('rejects bad values, unknown keys and an unknown profile with exit 2', async () => {
    const { tds } = await configured();
    expect((await tds(['config', 'set', 'base-url', 'http://example.com/v1'])).stderr).toMatch(/refusing plain http/);
    expect((await tds(['config', 'set', 'colour', 'red'])).code).toBe(2);
    expect((await tds(['config', 'set', 'default-format', 'xml'])).code).toBe(2);
    expect((await tds(['workspaces', '--profile', 'nope'])).stderr).toMatch(/no profile "nope"/);
  });

  it('a damaged config file is a usage error naming the file', async () => {
    const { dir, file, tds } = await configured();
    await tds(['config', 'set', 'default-format', 'csv']);
    await writeFile(file, '{broken');
    const result = await tds(['config', 'list']);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(`the config file ${join(dir, 'config.json')} is not valid JSON`);
  });

  it('has the keys and examples in --help', async () => {
    const { tds } = await configured();
    const result = await tds(['config', '--help']);
    expect(result.stdout).toMatch(/Keys:\n {2}base-url/);
    expect(result.stdout).toMatch(/Examples:\n {2}\$ tds config set base-url/);
  });
});
