import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { access } from 'node:fs/promises';
import { TDS_BIN } from '../helpers/cli.js';
import { RATE_SCALE, type Target } from './read-support.js';

// Helpers of the export end-to-end tests that run tds as a child process they can signal, read
// while it runs, or give an unusual stdout (/dev/full, a pipe closed early).

export interface SpawnedTds {
  child: ChildProcess;
  exit: Promise<number | null>;
  stdout(): string;
  stderr(): string;
}

export interface SpawnOptions {
  env?: Record<string, string>;
  /** stdio of the child (default: all pipes). */
  stdio?: StdioOptions;
  /** Run through `sh -c 'ulimit -f BLOCKS; exec node …'`: writes past BLOCKS × 512 bytes fail with EFBIG. */
  fileSizeBlocks?: number;
}

/** Spawns tds against `target` (clean environment, no colour, no config). */
export function spawnTds(target: Target, args: string[], options: SpawnOptions = {}): SpawnedTds {
  const env = {
    ...process.env,
    NO_COLOR: '1',
    TDS_CONFIG_DIR: '/nonexistent-tds-config',
    TDS_BASE_URL: target.baseUrl,
    TDS_API_KEY: target.apiKey,
    TDS_RATE_SCALE: RATE_SCALE,
    ...options.env,
  };
  const stdio = options.stdio ?? ['ignore', 'pipe', 'pipe'];
  const child =
    options.fileSizeBlocks === undefined
      ? spawn(process.execPath, [TDS_BIN, ...args], { env, stdio })
      : spawn('sh', ['-c', `ulimit -f ${options.fileSizeBlocks}; exec "$0" "$@"`, process.execPath, TDS_BIN, ...args], { env, stdio });
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  const exit = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return { child, exit, stdout: () => out, stderr: () => err };
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
