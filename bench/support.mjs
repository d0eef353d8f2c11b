// @ts-check
// What the benches share: `tds emulator` children, CPU time from /proc, memory-probe.mjs reports, the
// figures' formatting, and the verdict against a target (a bench exits 1 when it misses one).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** @typedef {import('./memory-probe.mjs').ProbeReport} ProbeReport */
/**
 * A `tds emulator` child: its ready line, and how to reach and stop it (stop() waits for it to exit, so
 * that `--data` is saved).
 * @typedef {{ baseUrl: string, apiKey: string, webhooks: Record<string, string>, pid: number, origin: string, stop: () => Promise<void> }} Emulator
 */

export const TDS_BIN = fileURLToPath(new URL('../bin/tds.js', import.meta.url));
export const MEMORY_PROBE = new URL('./memory-probe.mjs', import.meta.url).href;

/**
 * Starts `tds emulator --port 0 ARGS…` as a child, added to `started` (for the bench to stop them all
 * whatever happens); resolves once it printed its ready line.
 * @param {string[]} args
 * @param {Emulator[]} started
 * @returns {Promise<Emulator>}
 */
export function startEmulator(args, started) {
  const child = spawn(process.execPath, [TDS_BIN, 'emulator', '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const pid = child.pid;
  if (pid === undefined) throw new Error('could not start the emulator');
  /** @type {() => Promise<void>} */
  const stop = () =>
    new Promise((done) => {
      if (child.exitCode !== null || child.signalCode !== null) return done();
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      child.once('exit', () => {
        clearTimeout(timer);
        done();
      });
      child.kill('SIGTERM');
    });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`emulator exited with ${code}`)));
    createInterface({ input: child.stdout }).once('line', (line) => {
      const info = /** @type {Pick<Emulator, 'baseUrl' | 'apiKey' | 'webhooks'>} */ (JSON.parse(line));
      /** @type {Emulator} */
      const emulator = { ...info, pid, origin: new URL(info.baseUrl).origin, stop };
      started.push(emulator);
      resolve(emulator);
    });
  });
}

/**
 * CPU time (user + system) a process has used so far, from /proc/PID/stat (clock ticks of 10 ms on
 * Linux); undefined once it is gone.
 * @param {number} pid
 * @returns {number | undefined}
 */
export function cpuMsOf(pid) {
  try {
    const fields = (readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1] ?? '').split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

/**
 * The emulator child's CPU time so far; it must still be running.
 * @param {Emulator} emu
 */
export function emulatorCpuMs(emu) {
  const ms = cpuMsOf(emu.pid);
  if (ms === undefined) throw new Error(`the emulator (pid ${emu.pid}) is gone`);
  return ms;
}

/**
 * The report memory-probe.mjs wrote at a child's exit.
 * @param {string} path
 * @returns {ProbeReport | undefined}
 */
export function readProbe(path) {
  try {
    return /** @type {ProbeReport} */ (JSON.parse(readFileSync(path, 'utf8')));
  } catch {
    return undefined;
  }
}

/**
 * What the probe saw at the child's highest RSS: `at 3.2 s: RSS 130 MB = heap 55 of 58 MB (largest 60), external 20 MB (Buffers 17), other … MB`.
 * @param {ProbeReport | undefined} m
 */
export function describeProbe(m) {
  if (!m) return 'not recorded';
  const MB = (/** @type {number} */ bytes) => Math.round(bytes / 1048576);
  const snapshot = m.snapshot ? `; heap snapshot ${m.snapshot}` : '';
  const other = MB(m.rss - m.heapTotal - m.external);
  return `at ${(m.atMs / 1000).toFixed(1)} s: RSS ${MB(m.rss)} MB = heap ${MB(m.heapUsed)} of ${MB(m.heapTotal)} MB (largest ${MB(m.heapPeak)}), external ${MB(m.external)} MB (Buffers ${MB(m.arrayBuffers)}), other (native, code) ${other} MB${snapshot}`;
}

export const n = (/** @type {number} */ value) => Math.round(value).toLocaleString('en-US');
export const seconds = (/** @type {number} */ ms) => `${(ms / 1000).toFixed(1)} s`;
export const mb = (/** @type {number} */ kb) => `${(kb / 1024).toFixed(0)} MB`;
export const rate = (/** @type {number} */ rows, /** @type {number} */ ms) => `${n((rows / ms) * 1000)} rows/s`;
/** The middle of the values (the higher of the two middles when their count is even). */
export const median = (/** @type {number[]} */ values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};
export const load = () =>
  loadavg()
    .map((value) => value.toFixed(1))
    .join(' ');

/**
 * How many paired runs a comparison makes: `npm run bench -- NAME --repeat N` (run.js passes it on as
 * BENCH_REPEAT), else `fallback`; never fewer than 5.
 */
export function repeats(/** @type {number} */ fallback = 5) {
  const asked = Number(process.env.BENCH_REPEAT ?? fallback);
  return Math.max(5, Number.isFinite(asked) ? Math.floor(asked) : fallback);
}

/**
 * One side of a comparison: `run` measures it once and resolves the figure (ms of CPU or of wall time).
 * @typedef {{ name: string, run: () => Promise<number> }} Side
 */
/**
 * What paired runs gave: each side's figures in run order, and each pair's ratio b / a.
 * @typedef {{ a: number[], b: number[], ratios: number[], loadBefore: string, loadAfter: string }} Pairs
 */

/**
 * Two measurements compared fairly on a busy machine: paired, alternating runs (A B A B …, `pairs` pairs),
 * so that both sides see the same load as it drifts; the load average is printed before and after. A
 * figure is judged by its median, never by one run.
 * @param {{ a: Side, b: Side, pairs: number, unit?: string }} comparison
 * @returns {Promise<Pairs>}
 */
export async function pairedRuns({ a, b, pairs, unit = 'ms' }) {
  const loadBefore = load();
  console.log(`   ${pairs} pairs, ${a.name} then ${b.name} (load before: ${loadBefore})`);
  /** @type {Pairs} */
  const result = { a: [], b: [], ratios: [], loadBefore, loadAfter: '' };
  for (let i = 0; i < pairs; i += 1) {
    const first = await a.run();
    const second = await b.run();
    result.a.push(first);
    result.b.push(second);
    result.ratios.push(second / first);
  }
  result.loadAfter = load();
  console.log(`   ${a.name}: ${spread(result.a, unit)}`);
  console.log(`   ${b.name}: ${spread(result.b, unit)}`);
  console.log(`   ${b.name} / ${a.name}: ${spread(result.ratios, 'x', 2)} (load after: ${result.loadAfter})`);
  return result;
}

/** `median 120 ms (min 110, max 140)`: the middle of the values and their spread. */
export function spread(/** @type {number[]} */ values, unit = 'ms', digits = 0) {
  const sorted = [...values].sort((x, y) => x - y);
  const f = (/** @type {number | undefined} */ value) => (value ?? Number.NaN).toFixed(digits);
  return `median ${f(median(values))}${unit === 'x' ? 'x' : ` ${unit}`} (min ${f(sorted[0])}, max ${f(sorted.at(-1))}; ${values.length} runs)`;
}

/** The bench's verdict: check() prints one figure against its target; missed() says whether any was missed. */
export function verdict() {
  let missed = false;
  return {
    /**
     * @param {boolean} ok
     * @param {string} text
     */
    check(ok, text) {
      console.log(`  ${ok ? 'ok  ' : 'MISS'} ${text}`);
      if (!ok) missed = true;
    },
    missed: () => missed,
  };
}
