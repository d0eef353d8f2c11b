#!/usr/bin/env node
// @ts-check
// `tds stats` on the mirror of the 1,000,000-row generated table, against DuckDB's own SUMMARIZE of the
// same table in the same run (which computes less: approximate distinct counts, no top values).
//
// 1. Emulator child with rate limits off and `--rows N`; `tds sync Generated --db FILE` builds the mirror
//    (not timed against a target).
// 2. Three rounds, each: `tds stats Generated --no-sync --format json` and `tds sql "SUMMARIZE generated"`,
//    both as children on the same file; wall time and peak RSS (VmHWM) of each. The medians count.
//    Targets: stats <= 3 s wall, <= 300 MB peak RSS, <= 2x SUMMARIZE.
// 3. `tds stats Generated --no-sync -o report.html`. Targets: <= 5 s; the file <= 2 MB.
//
// Run: npm run bench -- stats     (exits 1 when a target is missed; traffic only to 127.0.0.1)
// Wall times follow the machine's load (other processes on its cores): each run's CPU time is printed
// beside it, and the ratio to SUMMARIZE, measured alike, holds under load.
// Env: BENCH_ROWS (default 1000000), BENCH_ROUNDS (3), BENCH_HEAP_SNAPSHOT_MB (see memory-probe.mjs).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { MEMORY_PROBE, TDS_BIN, describeProbe, load, mb, n, readProbe, seconds, startEmulator, verdict } from './support.mjs';

/** @typedef {import('./support.mjs').Emulator} Emulator */
/** @typedef {import('#dist/stats/stats-report.js').TableStats} TableStats */
/** @typedef {{ code: number | null, signal: string | null, stdout: string, stderr: string, ms: number, peakKb: number, cpuSeconds: number, memory: string }} TdsRun */

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const FAST = { TDS_RATE_SCALE: '1000000' }; // client pacing never waits (the emulator has no limits)
const TARGET = { statsSeconds: 3, statsPeakMb: 300, statsVsSummarize: 2, htmlSeconds: 5, htmlMb: 2 };

/** @type {Emulator[]} */
const emulators = [];
const dir = mkdtempSync(join(tmpdir(), 'tds-stats-bench-'));
const db = join(dir, 'mirror.duckdb');
const { check, missed } = verdict();

console.log(`load average before: ${load()} on ${availableParallelism()} CPUs`);
try {
  await buildMirror();
  await compare();
  await htmlReport();
} finally {
  await Promise.all(emulators.map((emulator) => emulator.stop()));
  rmSync(dir, { recursive: true, force: true });
}
console.log(`load average after: ${load()}`);
process.exit(missed() ? 1 : 0);

/** Phase 1: the mirror of the generated table. */
async function buildMirror() {
  const started = performance.now();
  const emu = await startEmulator(['--no-rate-limits', '--rows', String(ROWS)], emulators);
  const synced = await runTds(['sync', 'Generated', '--db', db], { ...FAST, TDS_BASE_URL: emu.baseUrl, TDS_API_KEY: emu.apiKey });
  mustSucceed(synced, 'tds sync');
  console.log(
    `\n1. mirror of ${n(ROWS)} rows: emulator and tds sync in ${seconds(performance.now() - started)}, ` +
      `mirror ${(statSync(db).size / 1e6).toFixed(0)} MB`,
  );
  await emu.stop();
}

/** Phase 2: tds stats against SUMMARIZE, alternately, ROUNDS times each. */
async function compare() {
  console.log(
    `\n2. tds stats Generated --no-sync vs tds sql "SUMMARIZE generated", ${ROUNDS} rounds. Targets: stats <= ${TARGET.statsSeconds} s, ` +
      `peak RSS <= ${TARGET.statsPeakMb} MB, <= ${TARGET.statsVsSummarize}x SUMMARIZE (medians)`,
  );
  /** @type {TdsRun[]} */
  const stats = [];
  /** @type {TdsRun[]} */
  const summaries = [];
  for (let round = 1; round <= ROUNDS; round += 1) {
    const profiled = await runTds(['stats', 'Generated', '--no-sync', '--db', db, '--format', 'json'], {}, `stats-${round}`);
    mustSucceed(profiled, 'tds stats');
    const summarized = await runTds(['sql', 'SUMMARIZE generated', '--db', db, '--format', 'json'], {}, `summarize-${round}`);
    mustSucceed(summarized, 'tds sql SUMMARIZE');
    stats.push(profiled);
    summaries.push(summarized);
    console.log(
      `round ${round}: tds stats ${seconds(profiled.ms)} (CPU ${profiled.cpuSeconds.toFixed(1)} s), peak RSS ${mb(profiled.peakKb)}; ` +
        `SUMMARIZE ${seconds(summarized.ms)} (CPU ${summarized.cpuSeconds.toFixed(1)} s), peak RSS ${mb(summarized.peakKb)}`,
    );
  }
  /** @type {TableStats} */
  const figures = JSON.parse(stats[0]?.stdout ?? '{}');
  check(figures.table?.rows === ROWS && figures.columns?.length === 7, `tds stats counted ${n(figures.table?.rows ?? 0)} rows, 7 fields`);
  const statsMs = median(stats.map((run) => run.ms));
  const summarizeMs = median(summaries.map((run) => run.ms));
  const worst = stats.reduce((a, b) => (b.peakKb > a.peakKb ? b : a));
  check(statsMs <= TARGET.statsSeconds * 1000, `tds stats ${seconds(statsMs)} (median; target <= ${TARGET.statsSeconds} s)`);
  check(
    worst.peakKb <= TARGET.statsPeakMb * 1024,
    `tds stats peak RSS ${mb(worst.peakKb)} (target <= ${TARGET.statsPeakMb} MB); ${worst.memory}`,
  );
  const ratio = statsMs / summarizeMs;
  check(
    ratio <= TARGET.statsVsSummarize,
    `tds stats ${ratio.toFixed(2)}x SUMMARIZE's ${seconds(summarizeMs)} (medians; target <= ${TARGET.statsVsSummarize}x)`,
  );
}

/** Phase 3: the HTML report of the same table. */
async function htmlReport() {
  console.log(`\n3. tds stats Generated --no-sync -o report.html. Targets: <= ${TARGET.htmlSeconds} s, the file <= ${TARGET.htmlMb} MB`);
  const file = join(dir, 'report.html');
  const run = await runTds(['stats', 'Generated', '--no-sync', '--db', db, '-o', file], {}, 'html');
  mustSucceed(run, 'tds stats -o report.html');
  const bytes = statSync(file).size;
  check(
    run.ms <= TARGET.htmlSeconds * 1000,
    `report written in ${seconds(run.ms)} (target <= ${TARGET.htmlSeconds} s), peak RSS ${mb(run.peakKb)}`,
  );
  check(bytes <= TARGET.htmlMb * 1e6, `report.html ${(bytes / 1e3).toFixed(0)} kB (target <= ${TARGET.htmlMb} MB)`);
}

/** @param {number[]} values */
function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/**
 * Runs `tds ARGS` as a child, sampling its peak RSS (VmHWM) until it exits; with `probe`, memory-probe.mjs says what the peak was.
 * @param {string[]} args
 * @param {Record<string, string>} env
 * @param {string} [probe]
 * @returns {Promise<TdsRun>}
 */
function runTds(args, env, probe) {
  const probeFile = probe ? join(dir, `${probe}.memory.json`) : undefined;
  const start = performance.now();
  const child = spawn(process.execPath, [...(probeFile ? ['--import', MEMORY_PROBE] : []), TDS_BIN, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, TDS_CONFIG_DIR: dir, NO_COLOR: '1', ...env, ...(probeFile ? { BENCH_MEMORY_PROBE: probeFile } : {}) },
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error('could not start tds');
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (/** @type {Buffer} */ chunk) => (stdout += chunk.toString()));
  child.stderr.on('data', (/** @type {Buffer} */ chunk) => (stderr += chunk.toString()));
  let peakKb = 0;
  const timer = setInterval(() => {
    try {
      const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (match) peakKb = Math.max(peakKb, Number(match[1]));
    } catch {
      // the child has exited
    }
  }, 20);
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
        peakKb: Math.max(peakKb, (report?.maxRssBytes ?? 0) / 1024),
        cpuSeconds: report?.cpuSeconds ?? Number.NaN,
        memory: describeProbe(report),
      });
    });
  });
}

/**
 * @param {TdsRun} run
 * @param {string} what
 */
function mustSucceed(run, what) {
  if (run.code !== 0) throw new Error(`${what} exited with ${run.code ?? run.signal}: ${run.stderr}`);
}
