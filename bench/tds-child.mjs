// @ts-check
// A benchmarked `tds` child: its environment, its run (output, wall time, peak RSS, what memory-probe.mjs
// saw) and the check that it succeeded.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { MEMORY_PROBE, TDS_BIN, describeProbe, readProbe } from './support.mjs';

/** @typedef {import('./support.mjs').Emulator} Emulator */
/**
 * One tds child: how it ended, what it printed, its wall time, its peak RSS (VmHWM, or getrusage at exit) and what
 * memory-probe.mjs saw at that peak.
 * @typedef {{ code: number | null, signal: string | null, stdout: string, stderr: string, ms: number, startedAt: number, endedAt: number, peakKb: number, cpuSeconds: number, memory: string }} TdsRun
 */
/**
 * How to run one child. env: its whole environment (see tdsEnv); probe: the name of its memory-probe report, written
 * to `dir`; sampleMs: how often VmHWM is read (50 ms unless given); bin: another build's bin/tds.js (this one's unless given).
 * @typedef {{ env: NodeJS.ProcessEnv, dir: string, probe?: string, sampleMs?: number, bin?: string }} RunOptions
 */

/**
 * The environment of a tds child: this one's, with the bench's config folder, no colours, `extra`, and the
 * emulator's URL and key when given; TDS_RATE_SCALE only when `extra` has it.
 * @param {{ dir: string, emulator?: Emulator, extra?: Record<string, string> }} options
 * @returns {NodeJS.ProcessEnv}
 */
export function tdsEnv({ dir, emulator, extra = {} }) {
  /** @type {NodeJS.ProcessEnv} */
  // the pushes' journals and ledgers stay in the run's folder, out of the user's data folder
  const env = { ...process.env, TDS_CONFIG_DIR: dir, TDS_DATA_DIR: join(dir, 'data'), NO_COLOR: '1', ...extra };
  if (!('TDS_RATE_SCALE' in extra)) delete env.TDS_RATE_SCALE;
  if (emulator) Object.assign(env, { TDS_BASE_URL: emulator.baseUrl, TDS_API_KEY: emulator.apiKey });
  return env;
}

/**
 * Runs `tds ARGS` as a child, sampling its peak RSS (VmHWM) until it exits; with `probe`, memory-probe.mjs says what
 * the peak was made of.
 * @param {string[]} args
 * @param {RunOptions} options
 * @returns {Promise<TdsRun>}
 */
export function runTds(args, { env, dir, probe, sampleMs = 50, bin = TDS_BIN }) {
  const probeFile = probe ? join(dir, `${probe}.memory.json`) : undefined;
  const startedAt = Date.now();
  const start = performance.now();
  const child = spawn(process.execPath, [...(probeFile ? ['--import', MEMORY_PROBE] : []), bin, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...env, ...(probeFile ? { BENCH_MEMORY_PROBE: probeFile } : {}) },
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error('could not start tds');
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (/** @type {Buffer} */ chunk) => (stdout += chunk.toString()));
  child.stderr.on('data', (/** @type {Buffer} */ chunk) => (stderr += chunk.toString()));
  let peakKb = 0;
  const timer = setInterval(() => (peakKb = Math.max(peakKb, highWaterKb(pid))), sampleMs);
  return new Promise((resolve) => {
    child.once('close', (code, signal) => {
      clearInterval(timer);
      const report = probeFile ? readProbe(probeFile) : undefined;
      resolve({
        code,
        signal,
        stdout,
        stderr,
        ms: performance.now() - start,
        startedAt,
        endedAt: Date.now(),
        peakKb: Math.max(peakKb, (report?.maxRssBytes ?? 0) / 1024),
        cpuSeconds: report?.cpuSeconds ?? Number.NaN,
        memory: describeProbe(report),
      });
    });
  });
}

/**
 * A process's peak RSS so far (VmHWM of /proc/PID/status) in kB; 0 once it is gone.
 * @param {number} pid
 */
export function highWaterKb(pid) {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0; // the child has exited
  }
}

/**
 * @param {TdsRun} run
 * @param {string} what
 */
export function mustSucceed(run, what) {
  if (run.code !== 0) throw new Error(`${what} exited with ${run.code ?? run.signal}: ${run.stderr}`);
}
