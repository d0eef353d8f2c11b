import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { test as base, expect } from 'vitest';
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../../src/emulator/index.js';
import { runTds, type RunOptions, type RunResult } from './cli.js';
import { startEmulatorProcess, type EmulatorProcess } from './emulator-process.js';
import type { EnvOverrides } from './hermetic-env.js';
import { RATE_SCALE } from './rate-scale.js';
import { runInProcess, type InProcessOptions } from './run-in-process.js';
import { spawnTds, type SpawnedTds, type SpawnOptions } from './spawn-tds.js';

// The suite's one emulator fixture (vitest test.extend). A harness is an emulator on 127.0.0.1, port 0,
// at the suite's rate scale (in this process, or `tds emulator` spawned), a temporary folder of its own
// (removed when the harness closes) with the mirror file and the config folder, the emulator's admin
// routes, and tds against it: in this process, or spawned where only a process shows what is tested.
//
//   test.override({ harnessOptions: { rows: 500 } });        // the file's options (default: none)
//   test.beforeAll(({ harness }) => { emu = harness.emu; }); // the file's harness, closed after its tests
//   test('…', async ({ open, tmp }) => { … });               // a harness and a folder of this test's own

/** What a harness is opened with: the emulator's options, or `spawned` for `tds emulator` as a process. */
export interface HarnessOptions extends EmulatorOptions {
  /** run `tds emulator` as a process with these arguments and environment instead of in this process (at `rateScale` too) */
  spawned?: { args?: string[]; env?: EnvOverrides };
  /** tds runs through `tds()` may print the API key and the webhook secrets (default: each run is checked they do not) */
  showsSecrets?: boolean;
}

export interface Harness {
  /** The emulator in this process (a spawned one has `process` instead). */
  readonly emu: RunningEmulator;
  /** The spawned `tds emulator` (an in-process one has `emu` instead). */
  readonly process: EmulatorProcess;
  baseUrl: string;
  apiKey: string;
  /** webhook URL by table ID */
  webhooks: Record<string, string>;
  /** the harness's temporary folder: the working folder of every run */
  dir: string;
  /** the mirror file (TDS_DB) of every run */
  db: string;
  /** what every run gets: the emulator's address and key, the rate scale, the mirror, a config and a data folder in `dir` */
  env: Record<string, string>;
  /** tds in this process; checks that neither the key nor a webhook secret reached its output */
  tds(args: string[], options?: InProcessOptions): Promise<RunResult>;
  /** bin/tds.js as a process, awaited (runTds) */
  run(args: string[], options?: RunOptions): Promise<RunResult>;
  /** bin/tds.js as a process (spawnTds), stdin closed unless told */
  spawn(args: string[], options?: SpawnOptions): SpawnedTds;
  /** An /_emulator admin route: its JSON answer; a status of 300 or more fails the test. */
  admin<T = unknown>(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<T>;
  /** writes `name` in `dir`: its path */
  file(name: string, content: string | Buffer): Promise<string>;
  close(): Promise<void>;
}

/** What an /_emulator route answered. */
export interface AdminReply<T> {
  status: number;
  body: T;
}

/** An emulator-only route (no key) of the emulator at `baseUrl`: `path` is relative to /_emulator; strings as they are, objects as JSON. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a reply body as tests read it (expect() checks its shape)
export async function adminRoute<T = any>(
  target: { baseUrl: string },
  method: string,
  path: string,
  body?: unknown,
): Promise<AdminReply<T>> {
  const response = await request(`${target.baseUrl.replace(/\/v1$/, '')}/_emulator${path}`, {
    method: method as 'GET',
    ...(body === undefined
      ? {}
      : {
          headers: { 'content-type': 'application/json' },
          body: typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body),
        }),
  });
  const text = await response.body.text();
  return { status: response.statusCode, body: (text ? JSON.parse(text) : undefined) as T };
}

/** A folder of ours in the temporary directory (`tds-…`); whoever makes it removes it. */
export const makeTempFolder = (name = 'test'): Promise<string> => mkdtemp(join(tmpdir(), `tds-${name}-`));

/** Opens a harness; its `close()` stops the emulator and removes the folder. */
export async function openHarness(options: HarnessOptions = {}): Promise<Harness> {
  const { spawned, showsSecrets, ...emulatorOptions } = options;
  const started = { port: 0, ingestDelayMs: 20, actionDelayMs: 0, rateScale: RATE_SCALE, ...emulatorOptions };
  // the emulator's scale (1 when a test unsets it) is the clients' too, so that both sides run alike
  const rateScale = String(started.rateScale ?? 1);
  const emulator = spawned
    ? await startEmulatorProcess(spawned.args, { TDS_RATE_SCALE: rateScale, ...spawned.env })
    : await startEmulator(started);
  const inProcess = 'close' in emulator ? emulator : undefined;
  const dir = await makeTempFolder('harness');
  const db = join(dir, 'mirror.duckdb');
  const env = {
    TDS_BASE_URL: emulator.baseUrl,
    TDS_API_KEY: emulator.apiKey,
    TDS_RATE_SCALE: rateScale,
    TDS_DB: db,
    TDS_CONFIG_DIR: join(dir, 'config'),
    TDS_DATA_DIR: join(dir, 'data'),
  };
  const secrets = [emulator.apiKey, ...Object.values(emulator.webhooks).map((url) => url.split('/').pop()!)];
  return {
    get emu() {
      if (!inProcess) throw new Error('this harness spawned its emulator: use harness.process');
      return inProcess;
    },
    get process() {
      if (inProcess) throw new Error('this harness runs its emulator in this process: use harness.emu');
      return emulator as EmulatorProcess;
    },
    baseUrl: emulator.baseUrl,
    apiKey: emulator.apiKey,
    webhooks: emulator.webhooks,
    dir,
    db,
    env,
    async tds(args, runOptions = {}) {
      const result = await runInProcess(args, { ...runOptions, cwd: runOptions.cwd ?? dir, env: { ...env, ...runOptions.env } });
      if (!showsSecrets) for (const secret of secrets) expect(result.stdout + result.stderr).not.toContain(secret);
      return result;
    },
    run: (args, runOptions = {}) => runTds(args, { ...runOptions, cwd: runOptions.cwd ?? dir, env: { ...env, ...runOptions.env } }),
    spawn: (args, spawnOptions = {}) =>
      spawnTds(args, {
        stdio: ['ignore', 'pipe', 'pipe'],
        ...spawnOptions,
        cwd: spawnOptions.cwd ?? dir,
        env: { ...env, ...spawnOptions.env },
      }),
    async admin<T>(method: string, path: string, body?: unknown): Promise<T> {
      const reply = await adminRoute<T>(emulator, method, path, body);
      expect(reply.status, `${method} /_emulator${path}: ${JSON.stringify(reply.body)}`).toBeLessThan(300);
      return reply.body;
    },
    async file(name, content) {
      const path = join(dir, name);
      await writeFile(path, content);
      return path;
    },
    async close() {
      try {
        await (inProcess ? inProcess.close() : (emulator as EmulatorProcess).stop());
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  };
}

/** Opens harnesses that are all closed by `closeAll`. */
function harnessPool(): { open: (options?: HarnessOptions) => Promise<Harness>; closeAll: () => Promise<void> } {
  const opened: Harness[] = [];
  return {
    open: async (options) => {
      const harness = await openHarness(options);
      opened.push(harness);
      return harness;
    },
    closeAll: async () => void (await Promise.all(opened.splice(0).map((harness) => harness.close()))),
  };
}

export const test = base.extend<{
  $file: {
    /** the options of the file's harness (`test.override({ harnessOptions })`) */
    harnessOptions: HarnessOptions;
    /** the file's harness, opened on first use, closed after the file's tests */
    harness: Harness;
    /** opens further harnesses closed after the file's tests */
    openForFile: (options?: HarnessOptions) => Promise<Harness>;
  };
  $test: {
    /** opens a harness of this test's own, closed after it */
    open: (options?: HarnessOptions) => Promise<Harness>;
    /** a temporary folder of this test's own, removed after it */
    tmp: string;
  };
}>({
  // eslint-disable-next-line no-empty-pattern
  harnessOptions: [async ({}, use) => use({}), { scope: 'file' }],
  harness: [
    async ({ harnessOptions }, use) => {
      const harness = await openHarness(harnessOptions);
      await use(harness);
      await harness.close();
    },
    { scope: 'file' },
  ],
  openForFile: [
    // eslint-disable-next-line no-empty-pattern
    async ({}, use) => {
      const pool = harnessPool();
      await use(pool.open);
      await pool.closeAll();
    },
    { scope: 'file' },
  ],
  // after `tmp` is set up, so before it is removed: a test's emulator may save its --data file there on close
  open: async ({ tmp: _tmp }, use) => {
    const pool = harnessPool();
    await use(pool.open);
    await pool.closeAll();
  },
  // eslint-disable-next-line no-empty-pattern
  tmp: async ({}, use) => {
    const dir = await makeTempFolder();
    await use(dir);
    await rm(dir, { recursive: true, force: true });
  },
});

/**
 * The running test's `open` (harnesses closed after it), for a file whose helpers or `it.each` tests open
 * harnesses outside the fixture's arguments: called once at the top of the file.
 */
export function useOpenOfEachTest(): (options?: HarnessOptions) => Promise<Harness> {
  let current: ((options?: HarnessOptions) => Promise<Harness>) | undefined;
  test.beforeEach(({ open }) => {
    current = open;
  });
  return (options) => {
    if (!current) throw new Error("a test's open is set before each test, not while the file loads");
    return current(options);
  };
}
