import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { buildProgram } from '../../src/program.js';
import { testContext } from '../helpers/context.js';
import { test as it } from '../helpers/emulator-fixture.js';
import { useTestFolder } from '../helpers/test-folder.js';

const folder = useTestFolder();

// Regression: profiles are keyed by the user's text. A profile named `__proto__` was "saved" but never
// written, and `constructor` or `toString` were found as profiles that were never made.

async function configCommand(dir: string, args: string[]): Promise<{ stdout: string; error?: Error }> {
  const ctx = testContext({ TDS_CONFIG_DIR: dir });
  let stdout = '';
  ctx.io.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  try {
    await buildProgram(ctx)
      .exitOverride()
      .parseAsync(['config', ...args], { from: 'user' });
    return { stdout };
  } catch (error) {
    return { stdout, error: error as Error };
  }
}

describe('profiles named like an object prototype member', () => {
  it.each(['__proto__', 'constructor', 'toString'])('a profile named %j is saved, read and listed like any other', async (name) => {
    const dir = await folder.make('profile-names');
    const url = 'https://a.example/v1';
    expect((await configCommand(dir, ['set', 'base-url', url, '--profile', name])).error).toBeUndefined();
    const saved = JSON.parse(await readFile(join(dir, 'config.json'), 'utf8')) as { profiles: object };
    expect(Object.entries(saved.profiles)).toEqual([[name, { 'base-url': url }]]);
    expect(await configCommand(dir, ['get', 'base-url', '--profile', name])).toEqual({ stdout: `${url}\n` });
    expect((await configCommand(dir, ['list'])).stdout).toBe(`[${name}]\nbase-url = ${url}\n`);
  });

  it.each(['constructor', 'toString', 'hasOwnProperty'])('a profile %j that was never made is not found', async (name) => {
    const dir = await folder.make('profile-names');
    await configCommand(dir, ['set', 'base-url', 'https://a.example/v1']);
    expect((await configCommand(dir, ['list', '--profile', name])).error?.message).toMatch(`no profile "${name}"`);
    expect((await configCommand(dir, ['get', 'base-url', '--profile', name])).error?.message).toMatch('is not set in profile');
  });
});
