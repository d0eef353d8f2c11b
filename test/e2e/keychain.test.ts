import { execFileSync, spawn } from 'node:child_process';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { childEnv } from '../helpers/hermetic-env.js';
import { TDS_BIN } from '../helpers/spawn-tds.js';
import { test as it } from '../helpers/emulator-fixture.js';

// The API key in the OS keychain: on Linux, a real Secret Service (GNOME Keyring) in a D-Bus session of
// the test's own, so the developer's keychain is never touched; and the fallback to the 0600 file where
// no keychain answers. CI installs gnome-keyring (.ci/run); a machine without it skips the first part.

const hasSecretService = ((): boolean => {
  try {
    execFileSync('sh', ['-c', 'command -v dbus-run-session && command -v gnome-keyring-daemon && command -v secret-tool'], {
      stdio: 'ignore',
    });
    return true;
  } catch {
    return false;
  }
})();

interface Step {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs tds commands one after another inside one D-Bus session with an unlocked GNOME Keyring, then
 * `secret-tool lookup` of the profile's entry; returns each step's result and what the keychain held.
 */
async function inKeyringSession(
  folder: string,
  env: Record<string, string>,
  steps: Array<{ args: string[]; input?: string }>,
): Promise<{ steps: Step[]; keychainAfter: string[] }> {
  const lines = ['set -u', 'printf pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null'];
  for (const [index, step] of steps.entries()) {
    const input = join(folder, `in-${index}`);
    await writeFile(input, step.input ?? '', { mode: 0o600 });
    const args = step.args.map((arg) => `'${arg.replace(/'/g, `'\\''`)}'`).join(' ');
    lines.push(
      `"$NODE" "$TDS" ${args} <"${input}" >"${folder}/out-${index}" 2>"${folder}/err-${index}"; echo $? >"${folder}/code-${index}"`,
      `secret-tool lookup service tds username default >"${folder}/kc-${index}" 2>/dev/null || true`,
    );
  }
  const child = spawn('dbus-run-session', ['--', 'sh', '-c', lines.join('\n')], {
    env: { ...childEnv(env), NODE: process.execPath, TDS: TDS_BIN },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  expect(code, stderr).toBe(0);
  const read = (name: string): Promise<string> => readFile(join(folder, name), 'utf8');
  const results: Step[] = [];
  const keychainAfter: string[] = [];
  for (const index of steps.keys()) {
    results.push({
      code: Number((await read(`code-${index}`)).trim()),
      stdout: await read(`out-${index}`),
      stderr: await read(`err-${index}`),
    });
    keychainAfter.push(await read(`kc-${index}`));
  }
  return { steps: results, keychainAfter };
}

describe('the API key in the OS keychain', () => {
  it.skipIf(!hasSecretService && !process.env.CI)(
    'is stored in the Secret Service, used from there, moved to the file and back on request, and removed',
    async ({ harness, tmp }) => {
      const configDir = join(tmp, 'config');
      const file = join(configDir, 'config.json');
      const env = { TDS_CONFIG_DIR: configDir, TDS_KEYCHAIN: 'on' };
      const { steps, keychainAfter } = await inKeyringSession(tmp, env, [
        { args: ['config', 'set', 'base-url', harness.baseUrl] },
        { args: ['config', 'set', 'api-key'], input: `${harness.apiKey}\n` },
        { args: ['workspaces', '--format', 'ndjson'] },
        { args: ['auth', 'check'] },
        { args: ['config', 'migrate-key', '--to', 'file'] },
        { args: ['config', 'migrate-key'] },
        { args: ['config', 'unset', 'api-key'] },
        { args: ['workspaces'] },
      ]);
      const [, set, listed, check, toFile, back, unset, without] = steps as [Step, Step, Step, Step, Step, Step, Step, Step];
      for (const step of steps) {
        expect(step.stdout + step.stderr).not.toContain(harness.apiKey);
      }

      expect(set.code, set.stderr).toBe(0);
      expect(set.stderr).toMatch(/saved api-key = \*\*\*\*\w{4} in profile "default" \(the OS keychain\)/);
      expect(keychainAfter[1]).toBe(harness.apiKey);

      expect(listed.code, listed.stderr).toBe(0);
      expect(listed.stdout.trim().split('\n')).toHaveLength(3);
      expect(check.code, check.stderr).toBe(0);
      expect(check.stderr).toMatch(/API key +\*\*\*\*\w{4} \(from profile "default" .*, in the OS keychain\)/);

      expect(toFile.code, toFile.stderr).toBe(0);
      expect(keychainAfter[4]).toBe('');
      expect(back.code, back.stderr).toBe(0);
      expect(keychainAfter[5]).toBe(harness.apiKey);

      expect(unset.code, unset.stderr).toBe(0);
      expect(keychainAfter[6]).toBe('');
      expect(without.code).toBe(3);
      expect(without.stderr).toMatch(/no API key is set/);
      const saved = JSON.parse(await readFile(file, 'utf8')) as { profiles: Record<string, Record<string, string>> };
      expect(saved.profiles.default).toEqual({ 'base-url': expect.any(String) });
    },
  );

  it('falls back to the 0600 file where no keychain answers, and says so once', async ({ harness, tmp }) => {
    const configDir = join(tmp, 'config');
    const file = join(configDir, 'config.json');
    const run = (args: string[], input = ''): Promise<Step> =>
      new Promise((resolve) => {
        // a session bus that does not exist: the keychain cannot be reached, as on a headless server
        const env = {
          TDS_CONFIG_DIR: configDir,
          TDS_KEYCHAIN: 'on',
          DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/bus',
          DISPLAY: undefined,
        };
        const child = spawn(process.execPath, [TDS_BIN, ...args], { env: childEnv(env) });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
        child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
        child.stdin.end(input);
        child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
      });
    const set = await run(['config', 'set', 'api-key'], `${harness.apiKey}\n`);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stderr).toMatch(/no OS keychain answered \(.+\): the key is kept in .*config\.json \(mode 0600\) instead/);
    expect(set.stderr).not.toContain(harness.apiKey);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const saved = JSON.parse(await readFile(file, 'utf8')) as { profiles: Record<string, Record<string, string>> };
    expect(saved.profiles.default?.['api-key']).toBe(harness.apiKey);
    expect(saved.profiles.default?.['api-key-store']).toBeUndefined();

    const listed = await run(['workspaces', '--format', 'ndjson', '--base-url', harness.baseUrl]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stderr).toBe('');

    const moved = await run(['config', 'migrate-key']);
    expect(moved.code).toBe(2);
    expect(moved.stderr).toMatch(/the key was not moved: it stays in the file/);
  });
});
