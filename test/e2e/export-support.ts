import { access } from 'node:fs/promises';
import { spawnTds, type SpawnedTds, type SpawnOptions } from '../helpers/spawn-tds.js';
import { RATE_SCALE, type Target } from './read-support.js';

// Helpers of the export end-to-end tests that run tds as a child process they can signal, read
// while it runs, or give an unusual stdout (/dev/full, a pipe closed early).

/** Spawns tds against `target` at the suite's rate scale (no colour, no config; stdin closed). */
export function spawnAgainst(target: Target, args: string[], options: SpawnOptions = {}): SpawnedTds {
  return spawnTds(args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    ...options,
    env: { TDS_BASE_URL: target.baseUrl, TDS_API_KEY: target.apiKey, TDS_RATE_SCALE: RATE_SCALE, ...options.env },
  });
}

export const exists = (path: string): Promise<boolean> =>
  access(path).then(
    () => true,
    () => false,
  );

/** Waits until `check()` holds, polling every 20 ms, for at most `timeoutMs`. */
export async function waitUntil(check: () => boolean | Promise<boolean>, timeoutMs = 15_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
