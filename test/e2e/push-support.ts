import { join } from 'node:path';
import { expect, test } from 'vitest';
import type { EmulatorOptions } from '../../src/emulator/index.js';
import type { RunOptions, RunResult } from '../helpers/cli.js';
import { RATE_SCALE } from '../helpers/rate-scale.js';
import { runInProcess } from '../helpers/run-in-process.js';
import { spawnTds, type SpawnedTds } from '../helpers/spawn-tds.js';
import { pushBench, type PushBench } from '../push/helpers/emulator.js';

// The push end-to-end tests' bench (an emulator and a temp folder, push/helpers/emulator.ts) with tds
// run in-process in that folder; spawned only where a test kills the run or holds its journal.

/** Client waits (retry-after, backoff, --wait polls) divided by the suite's scale; the emulator's rate limits are off. */
export const FAST = { TDS_RATE_SCALE: String(RATE_SCALE) };

/** pushBench, its `tds` run in-process, checking that no secret reached the output. */
export async function inProcessBench(options: EmulatorOptions = {}): Promise<PushBench> {
  const bench = await pushBench(options);
  const secrets = [bench.emu.apiKey, ...Object.values(bench.emu.webhooks).map((url) => url.split('/').pop()!)];
  return {
    ...bench,
    async tds(args: string[], runOptions: RunOptions = {}): Promise<RunResult> {
      const result = await runInProcess(args, {
        ...runOptions,
        cwd: runOptions.cwd ?? bench.dir,
        env: { ...benchEnv(bench), ...runOptions.env },
      });
      for (const secret of secrets) {
        expect(result.stdout).not.toContain(secret);
        expect(result.stderr).not.toContain(secret);
      }
      return result;
    },
  };
}

/** Starts tds in the bench's folder as a child process (to kill it, or to hold a journal against an in-process run). */
export function spawnInBench(bench: PushBench, args: string[], env: Record<string, string | undefined> = {}): SpawnedTds {
  return spawnTds(args, { cwd: bench.dir, stdio: ['ignore', 'pipe', 'pipe'], env: { ...benchEnv(bench), ...env } });
}

function benchEnv(bench: PushBench): Record<string, string> {
  return { TDS_BASE_URL: bench.emu.baseUrl, TDS_API_KEY: bench.emu.apiKey, TDS_CONFIG_DIR: join(bench.dir, 'config') };
}

/** A test with its own emulator and temp folder (`bench`), so tests can run concurrently. */
export const pushTest = test.extend<{ bench: PushBench }>({
  // vitest reads a fixture's dependencies from its first parameter, which must be a pattern: this one needs none
  bench: async ({ task: _task }, use) => {
    const bench = await inProcessBench();
    await use(bench);
    await bench.close();
  },
});
