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
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { load, mb, median, n, seconds, startEmulator, verdict } from './support.mjs';
import { mustSucceed, runTds, tdsEnv } from './tds-child.mjs';

/** @typedef {import('./support.mjs').Emulator} Emulator */
/** @typedef {import('#dist/stats/stats-report.js').TableStats} TableStats */
/** @typedef {import('./tds-child.mjs').TdsRun} TdsRun */

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const FAST = { TDS_RATE_SCALE: '1000000' }; // the client's limiter never waits (the emulator has no limits)
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
  const synced = await runTds(['sync', 'Generated', '--db', db], { env: tdsEnv({ dir, emulator: emu, extra: FAST }), dir });
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
    const profiled = await onMirror(['stats', 'Generated', '--no-sync', '--db', db, '--format', 'json'], `stats-${round}`);
    mustSucceed(profiled, 'tds stats');
    const summarized = await onMirror(['sql', 'SUMMARIZE generated', '--db', db, '--format', 'json'], `summarize-${round}`);
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
  const run = await onMirror(['stats', 'Generated', '--no-sync', '--db', db, '-o', file], 'html');
  mustSucceed(run, 'tds stats -o report.html');
  const bytes = statSync(file).size;
  check(
    run.ms <= TARGET.htmlSeconds * 1000,
    `report written in ${seconds(run.ms)} (target <= ${TARGET.htmlSeconds} s), peak RSS ${mb(run.peakKb)}`,
  );
  check(bytes <= TARGET.htmlMb * 1e6, `report.html ${(bytes / 1e3).toFixed(0)} kB (target <= ${TARGET.htmlMb} MB)`);
}

/**
 * Runs `tds ARGS` on the mirror (no network), its peak RSS sampled every 20 ms (these runs last a few seconds);
 * memory-probe.mjs says what the peak was.
 * @param {string[]} args
 * @param {string} probe
 */
function onMirror(args, probe) {
  return runTds(args, { env: tdsEnv({ dir }), dir, probe, sampleMs: 20 });
}
