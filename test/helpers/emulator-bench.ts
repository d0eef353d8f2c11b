import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../../src/emulator/index.js';
import type { RunResult } from './cli.js';
import type { EnvOverrides } from './hermetic-env.js';
import { RATE_SCALE } from './rate-scale.js';
import { runInProcess, type InProcessOptions } from './run-in-process.js';
import { spawnTds, type SpawnedTds, type SpawnOptions } from './spawn-tds.js';

// An emulator in this process (at the suite's rate scale), a folder of its own with a mirror file and a
// config folder, the emulator's admin routes, and tds against it: in-process, or as a process where only
// a process shows what is tested (signals, locks between processes). The mirror, sync and stats tests stand on it.

export interface EmulatorBench {
  emu: RunningEmulator;
  dir: string;
  /** The mirror file (TDS_DB) of every run. */
  db: string;
  /** The variables every run gets: the emulator's address and key, the rate scale, the mirror, the config folder. */
  env: Record<string, string>;
  /** tds in this process (runInProcess), in `dir` unless told. */
  tds(args: string[], options?: InProcessOptions): Promise<RunResult>;
  /** bin/tds.js as a process (spawnTds), in `dir`, stdin closed. */
  spawn(args: string[], options?: Pick<SpawnOptions, 'env'>): SpawnedTds;
  /** An /_emulator admin route; a status of 300 or more fails the test. */
  admin<T = unknown>(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<T>;
  close(): Promise<void>;
}

/**
 * Quick by default: webhook rows show after 20 ms, action cells settle at once. The rate scale is the
 * suite's unless `options.rateScale` says otherwise; the runs get the same as TDS_RATE_SCALE.
 */
export async function emulatorBench(options: EmulatorOptions = {}): Promise<EmulatorBench> {
  const rateScale = options.rateScale ?? RATE_SCALE;
  const emu = await startEmulator({ port: 0, ingestDelayMs: 20, actionDelayMs: 0, ...options, rateScale });
  const dir = await mkdtemp(join(tmpdir(), 'tds-bench-'));
  const db = join(dir, 'mirror.duckdb');
  const env = {
    TDS_BASE_URL: emu.baseUrl,
    TDS_API_KEY: emu.apiKey,
    TDS_RATE_SCALE: String(rateScale),
    TDS_DB: db,
    TDS_CONFIG_DIR: join(dir, 'config'),
  };
  const origin = emu.baseUrl.replace(/\/v1$/, '');
  return {
    emu,
    dir,
    db,
    env,
    tds: (args, runOptions = {}) => runInProcess(args, { ...runOptions, cwd: runOptions.cwd ?? dir, env: { ...env, ...runOptions.env } }),
    spawn: (args, spawnOptions = {}) =>
      spawnTds(args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], env: { ...env, ...spawnOptions.env } }),
    async admin<T>(method: string, path: string, body?: unknown): Promise<T> {
      const response = await fetch(`${origin}/_emulator${path}`, {
        method,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const json = (await response.json()) as T;
      expect(response.status, JSON.stringify(json)).toBeLessThan(300);
      return json;
    },
    async close() {
      await emu.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** The variables that make stdout (and stderr) a terminal of `columns` columns, in colour or not. */
export function terminalEnv(columns: number, color = false): EnvOverrides {
  return { TDS_FORCE_TTY: '1', COLUMNS: String(columns), NO_COLOR: color ? undefined : '1' };
}
