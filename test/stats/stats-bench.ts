import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { Chalk } from 'chalk';
import { CommanderError } from 'commander';
import { expect } from 'vitest';
import { hintsOf } from '../../src/commands/hints.js';
import { TdsError } from '../../src/core/errors.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { buildProgram } from '../../src/program.js';

// An emulator in this process and the command program run in this process against it, with its own
// mirror file and config folder: what the stats tests stand on.

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  /** stdout is a terminal (of this many columns) */
  terminal?: { columns: number; color?: boolean };
  env?: Record<string, string>;
}

export interface StatsBench {
  emu: RunningEmulator;
  dir: string;
  db: string;
  tds(args: string[], options?: RunOptions): Promise<RunResult>;
  admin<T = unknown>(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<T>;
  close(): Promise<void>;
}

// commander reads TDS_BASE_URL, TDS_PROFILE and TDS_TIMEOUT from the process's own environment: a
// developer's settings must not reach these runs (each test file is a process of its own)
for (const name of Object.keys(process.env)) if (name.startsWith('TDS_')) delete process.env[name];

/** The emulator's rate windows and the client's pacing both run this many times faster. */
const SCALE = 50;

export async function statsBench(): Promise<StatsBench> {
  const emu = await startEmulator({ port: 0, ingestDelayMs: 20, actionDelayMs: 0, rateScale: SCALE });
  const dir = await mkdtemp(join(tmpdir(), 'tds-stats-'));
  const db = join(dir, 'mirror.duckdb');
  const origin = emu.baseUrl.replace(/\/v1$/, '');
  return {
    emu,
    dir,
    db,
    tds: (args, options = {}) =>
      runInProcess(
        ['--base-url', emu.baseUrl, ...args],
        {
          TDS_API_KEY: emu.apiKey,
          TDS_RATE_SCALE: String(SCALE),
          TDS_DB: db,
          TDS_CONFIG_DIR: join(dir, 'config'),
          ...options.env,
        },
        options.terminal,
      ),
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

/** The command program with captured streams; a failure is reported as main.ts reports it (one line, a hint, the exit code). */
export async function runInProcess(args: string[], env: Record<string, string>, terminal?: RunOptions['terminal']): Promise<RunResult> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  const color = Boolean(terminal?.color) && env.NO_COLOR === undefined;
  const ctx = {
    io: {
      stdout,
      stderr,
      stdin: new PassThrough(),
      stdoutIsTTY: terminal !== undefined,
      stderrIsTTY: false,
      color: new Chalk({ level: color ? 1 : 0 }),
      colorEnabled: color,
      terminalWidth: terminal?.columns ?? 100,
      env,
    },
    signal: new AbortController().signal,
    verbose: () => undefined,
  };
  let code = 0;
  try {
    await buildProgram(ctx).parseAsync(args, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) code = error.exitCode === 0 ? 0 : 2;
    else if (error instanceof TdsError) {
      const hint = hintsOf(error);
      err += `tds: ${error.message}\n${hint ? `hint: ${hint}\n` : ''}`;
      code = error.exitCode;
    } else throw error;
  }
  return { code, stdout: out, stderr: err };
}
