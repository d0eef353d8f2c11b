#!/usr/bin/env node
// @ts-check
// `tds rows` export speed and memory against the floor of merely downloading the same pages.
//
// 1. Emulator child with rate limits off and a 1,000,000-row table. The floor: a minimal undici loop in
//    this process that fetches every page (GET rows, limit 100, following nextCursor) and parses it.
//    Then `bin/tds.js rows Generated -o FILE` as a child, for csv and for ndjson, with TDS_RATE_SCALE
//    high enough that the client's limiter never waits: rows/s, and peak RSS (VmHWM of /proc/PID/status).
//    Targets: export time <= 1.3x the floor, peak RSS <= 150 MB. memory-probe.mjs says what the peak was made of.
//    Then `-o export.parquet` (rows staged in DuckDB, copied out as Parquet at the end): tds's CPU time <= 1.3x
//    the csv export's, peak RSS <= 250 MB, and the file read back by DuckDB holds every row.
//    Each ratio is the median of paired, alternating runs (floor and export, csv and parquet export: --repeat N
//    pairs, at least 5), the load printed before and after; the peak RSS targets are on the median too.
// 2. Emulator child with its real rate limits and a 12,000-row table: one export (120 requests at 60 a
//    minute) at 0 and 200 ms round trip. Target: within 5% of the least time the limit and chained cursors
//    allow (rateLimited says it), the window bound by the limit, at most one 429.
//
// Run: npm run bench -- export [--repeat N]
// Env: BENCH_ROWS (default 1000000), BENCH_LIMITED_ROWS (12000), BENCH_LIMITED_LATENCIES (0,200), BENCH_RATE_SCALE (phase 2 time scale, 1 = real
// time: about a minute), BENCH_SKIP_FAST=1 / BENCH_SKIP_LIMITED=1 to skip phase 1 / 2, BENCH_HEAP_SNAPSHOT_MB (see
// memory-probe.mjs), BENCH_TRACE_GC=DIR (V8's --trace-gc-nvp of each export, to DIR/<file>.gc.txt: `promoted=` per
// young collection shows objects living longer than they should).
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import {
  MEMORY_PROBE,
  TDS_BIN,
  cpuMsOf,
  describeProbe,
  emulatorCpuMs,
  load,
  mb,
  median,
  pairedRuns,
  rate,
  readProbe,
  repeats,
  seconds,
  startEmulator,
  verdict,
} from './support.mjs';
import { generatedTable, requestLog } from './emulator-api.mjs';
import { highWaterKb } from './tds-child.mjs';

/** @typedef {import('./emulator-api.mjs').Table} Table */
/** @typedef {import('#dist/service/index.js').RowsPage} RowsPage */
/** @typedef {import('./support.mjs').Emulator} Emulator */

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const LIMITED_ROWS = Number(process.env.BENCH_LIMITED_ROWS ?? 12_000);
const PAIRS = repeats(5);
const RATE_SCALE = Number(process.env.BENCH_RATE_SCALE ?? 1);
const PAGE = 100;
/** The round trips (ms) phase 2 runs at, through `tds emulator --latency`. */
const LIMITED_LATENCIES = (process.env.BENCH_LIMITED_LATENCIES ?? '0,200').split(',').filter(Boolean).map(Number);
const ROWS_PER_MINUTE = 60; // the service's row-read limit (docs/service-api.md 8)

/** @type {Emulator[]} every emulator started, stopped at the end whatever happened */
const emulators = [];
const dir = mkdtempSync(join(tmpdir(), 'tds-export-bench-'));

/**
 * GET url with the key; the parsed body, of the type the caller names.
 * @template T
 * @param {Agent} dispatcher
 * @param {string} url
 * @param {string} apiKey
 * @returns {Promise<T>}
 */
async function getJson(dispatcher, url, apiKey) {
  const response = await request(url, { dispatcher, headers: { authorization: `Bearer ${apiKey}` } });
  const body = await response.body.json();
  if (response.statusCode !== 200) throw new Error(`GET ${url}: HTTP ${response.statusCode} ${JSON.stringify(body)}`);
  return /** @type {T} */ (body);
}

/**
 * The floor: every page downloaded and parsed, one after another, on one keep-alive connection.
 * @param {Emulator} emu
 * @param {Table} table
 * @returns {Promise<{ rows: number, ms: number, cpuMs: number, emuCpuMs: number }>}
 */
async function floor(emu, table, maxPages = Infinity) {
  const dispatcher = new Agent({ connections: 1 });
  const emuCpu = emulatorCpuMs(emu);
  const cpu = process.cpuUsage();
  const start = performance.now();
  /** @type {string | null} */
  let cursor = null;
  let rows = 0;
  for (;;) {
    const url = `${emu.baseUrl}/tables/${table.id}/rows?limit=${PAGE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    /** @type {RowsPage} */
    const page = await getJson(dispatcher, url, emu.apiKey);
    rows += page.rows.length;
    if (!page.hasNextPage || rows >= maxPages * PAGE) break;
    cursor = page.nextCursor;
  }
  const ms = performance.now() - start;
  const used = process.cpuUsage(cpu);
  await dispatcher.close();
  return { rows, ms, cpuMs: (used.user + used.system) / 1000, emuCpuMs: emulatorCpuMs(emu) - emuCpu };
}

/**
 * What one `tds rows … -o FILE` run took.
 * @typedef {{ ms: number, endedAt: number, peakKb: number, cpuMs: number, emuCpuMs: number, bytes: number, stderr: string, memory: string }} ExportRun
 */

/**
 * Runs `tds rows TABLE -o FILE …` and samples the child's peak RSS (VmHWM) until it exits.
 * @param {Emulator} emu
 * @param {Table} table
 * @param {string} file
 * @param {{ env?: Record<string, string>, args?: string[] }} [extra] more variables and arguments for tds
 * @returns {Promise<ExportRun>}
 */
function exportWithTds(emu, table, file, extra = {}) {
  const { env: extraEnv = {}, args: extraArgs = [] } = extra;
  const start = performance.now();
  const emuCpu = emulatorCpuMs(emu);
  const probe = `${file}.memory.json`;
  // V8 writes its GC trace to stdout, which tds leaves alone with -o.
  const trace = process.env.BENCH_TRACE_GC ? openSync(join(process.env.BENCH_TRACE_GC, `${basename(file)}.gc.txt`), 'w') : 'ignore';
  const child = spawn(process.execPath, ['--import', MEMORY_PROBE, TDS_BIN, 'rows', table.id, '-o', file, ...extraArgs], {
    stdio: ['ignore', trace, 'pipe'],
    env: {
      ...process.env,
      TDS_BASE_URL: emu.baseUrl,
      TDS_API_KEY: emu.apiKey,
      TDS_CONFIG_DIR: dir,
      NO_COLOR: '1',
      BENCH_MEMORY_PROBE: probe,
      ...extraEnv,
    },
  });
  const { pid, stderr: stderrStream } = child;
  if (pid === undefined || !stderrStream) throw new Error('could not start tds');
  let stderr = '';
  stderrStream.on('data', (/** @type {Buffer} */ chunk) => (stderr += chunk.toString()));
  let peakKb = 0;
  let cpuMs = 0;
  const sample = () => {
    peakKb = Math.max(peakKb, highWaterKb(pid));
    cpuMs = cpuMsOf(pid) ?? cpuMs;
  };
  const timer = setInterval(sample, 50);
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => {
      clearInterval(timer);
      if (trace !== 'ignore') closeSync(trace);
      const ms = performance.now() - start;
      const endedAt = Date.now();
      const report = readProbe(probe);
      if (code !== 0) reject(new Error(`tds exited with ${code}: ${stderr}`));
      else
        resolve({
          ms,
          endedAt,
          peakKb,
          // the probe's count at exit (every thread, the end included), else the last sample
          cpuMs: report ? report.cpuSeconds * 1000 : cpuMs,
          emuCpuMs: emulatorCpuMs(emu) - emuCpu,
          bytes: statSync(file).size,
          stderr,
          memory: describeProbe(report),
        });
    });
  });
}

const { check, missed } = verdict();

try {
  if (process.env.BENCH_SKIP_FAST !== '1') await throughput();
  if (process.env.BENCH_SKIP_LIMITED !== '1') for (const ms of LIMITED_LATENCIES) await rateLimited(ms);
} finally {
  // A phase that threw left its emulator running; no child outlives the bench.
  await Promise.all(emulators.map((emulator) => emulator.stop()));
  rmSync(dir, { recursive: true, force: true });
}
console.log(`load average after: ${load()}`);
process.exit(missed() ? 1 : 0);

/** Phase 1: throughput and memory, rate limits off. */
async function throughput() {
  const loadStart = performance.now();
  const fast = await startEmulator(['--no-rate-limits', '--rows', String(ROWS)], emulators);
  const table = await generatedTable(fast);
  console.log(`emulator child: ${ROWS.toLocaleString('en-US')} rows ready in ${(performance.now() - loadStart).toFixed(0)} ms`);
  await floor(fast, table, 100); // warm-up
  console.log(`load average before: ${load()} on ${availableParallelism()} CPUs`);
  for (const format of ['csv', 'ndjson']) {
    console.log(`\ntds rows -o export.${format} against the floor (undici loop, GET + JSON.parse), paired:`);
    const file = join(dir, `export.${format}`);
    /** @type {ExportRun[]} */
    const runs = [];
    /** @type {Array<{ rows: number, ms: number, cpuMs: number, emuCpuMs: number }>} */
    const floors = [];
    const pairs = await pairedRuns({
      a: {
        name: 'floor',
        run: async () => {
          const result = await floor(fast, table);
          floors.push(result);
          return result.ms;
        },
      },
      b: {
        name: `tds rows -o export.${format}`,
        run: async () => {
          const run = await exportWithTds(fast, table, file, { env: { TDS_RATE_SCALE: '1000000' } });
          runs.push(run);
          rmSync(file, { force: true });
          return run.ms;
        },
      },
      pairs: PAIRS,
    });
    const last = runs.at(-1);
    const cpuRatio = median(runs.map((run, i) => (run.cpuMs + run.emuCpuMs) / ((floors[i]?.cpuMs ?? 0) + (floors[i]?.emuCpuMs ?? 0))));
    console.log(
      `   tds: ${rate(ROWS, median(pairs.b))}, ${last ? (last.bytes / 1e6).toFixed(0) : '?'} MB written; CPU tds ${seconds(median(runs.map((run) => run.cpuMs)))}, ` +
        `emulator ${seconds(median(runs.map((run) => run.emuCpuMs)))} (median ${cpuRatio.toFixed(2)}x the floor's CPU)`,
    );
    const peakKb = median(runs.map((run) => run.peakKb));
    check(median(pairs.ratios) <= 1.3, `time ${median(pairs.ratios).toFixed(2)}x the floor (median of ${PAIRS} pairs; target <= 1.3x)`);
    check(peakKb <= 150 * 1024, `peak RSS ${mb(peakKb)} (median; target <= 150 MB); last run: ${last?.memory ?? ''}`);
  }
  await parquet(fast, table);
  await fast.stop();
}

/**
 * The Parquet export of the same table against its csv export, in paired runs: tds's own CPU time (on a shared
 * machine wall time is mostly waiting for a core).
 * @param {Emulator} emu
 * @param {Table} table
 */
async function parquet(emu, table) {
  console.log('\ntds rows -o export.parquet against tds rows -o export.csv, CPU time of tds, paired:');
  const file = join(dir, 'export.parquet');
  const csvFile = join(dir, 'export.csv');
  /** @type {ExportRun[]} */
  const runs = [];
  /** @type {ExportRun[]} */
  const csvRuns = [];
  let rows = 0;
  const pairs = await pairedRuns({
    a: {
      name: 'csv export CPU',
      run: async () => {
        const run = await exportWithTds(emu, table, csvFile, { env: { TDS_RATE_SCALE: '1000000' } });
        csvRuns.push(run);
        rmSync(csvFile, { force: true });
        return run.cpuMs;
      },
    },
    b: {
      name: 'parquet export CPU',
      run: async () => {
        const run = await exportWithTds(emu, table, file, { env: { TDS_RATE_SCALE: '1000000' } });
        runs.push(run);
        rows = await parquetRows(file);
        rmSync(file, { force: true });
        return run.cpuMs;
      },
    },
    pairs: PAIRS,
  });
  const last = runs.at(-1);
  const timeRatio = median(runs.map((run, i) => run.ms / (csvRuns[i]?.ms ?? Number.NaN)));
  console.log(
    `   parquet: ${rate(ROWS, median(runs.map((run) => run.ms)))} (median ${timeRatio.toFixed(2)}x the csv export's time), ` +
      `${last ? (last.bytes / 1e6).toFixed(0) : '?'} MB written`,
  );
  const peakKb = median(runs.map((run) => run.peakKb));
  check(median(pairs.ratios) <= 1.3, `CPU ${median(pairs.ratios).toFixed(2)}x the csv export's (median of ${PAIRS} pairs; target <= 1.3x)`);
  check(peakKb <= 250 * 1024, `peak RSS ${mb(peakKb)} (median; target <= 250 MB); last run: ${last?.memory ?? ''}`);
  check(
    rows === table.rowCount,
    `${rows.toLocaleString('en-US')} rows read back from the last file (${table.rowCount.toLocaleString('en-US')} in the table)`,
  );
}

/**
 * The number of rows of a Parquet file, as DuckDB reads it.
 * @param {string} file
 */
async function parquetRows(file) {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  const reader = await connection.runAndReadAll(`SELECT count(*)::DOUBLE AS n FROM read_parquet('${file.replace(/'/g, "''")}')`);
  const n = Number(reader.getRowObjectsJS()[0]?.n);
  connection.closeSync();
  instance.closeSync();
  return n;
}

/**
 * Phase 2: the real row-read limit (optionally scaled), 12,000 rows = 120 requests, at each round trip of
 * BENCH_LIMITED_LATENCIES (`tds emulator --latency`). The limit is a sliding window of 60 reads: it allows
 * a burst of 60, and request k may start floor(k / 60) windows after the first. A walk of chained cursors
 * cannot burst: each page waits for the previous one's cursor, one round trip each. So the least time
 * any client can take is ideal(RTT): the windows the limit imposes, plus the round trips of the pages
 * after the last window opens (for 120 pages: 60 s + 60 x RTT, 72 s at 200 ms). Target: the rows phase
 * within 5% of ideal(RTT), the 61st read within 5% of one window after the first (bound by the limit,
 * not the network), at most one 429.
 */
async function rateLimited(/** @type {number} */ latencyMs) {
  const latency = latencyMs > 0 ? ['--latency', String(latencyMs)] : [];
  const limited = await startEmulator(['--rows', String(LIMITED_ROWS), '--rate-scale', String(RATE_SCALE), ...latency], emulators);
  const small = await generatedTable(limited);
  const requests = Math.ceil(LIMITED_ROWS / PAGE);
  const windowMs = 60_000 / RATE_SCALE;
  const windows = Math.floor((requests - 1) / ROWS_PER_MINUTE);
  // the pages read after the last window opens, one round trip each (the last one's answer included)
  const idealMs = windows * windowMs + (requests - windows * ROWS_PER_MINUTE) * latencyMs;
  const file = join(dir, `limited-${latencyMs}.csv`);
  const run = await exportWithTds(limited, small, file, { env: RATE_SCALE === 1 ? {} : { TDS_RATE_SCALE: String(RATE_SCALE) } });
  const log = await requestLog(limited);
  const rowReads = log.filter((entry) => entry.bucket === 'rows');
  const throttled = rowReads.filter((entry) => entry.status === 429).length;
  // The limit governs the rows phase: from the first row request to the file being complete (start-up,
  // the table and schema reads come before it and are reported in the total). The log dates a request
  // when it reaches the emulator's socket, before --latency's way there.
  const firstRead = rowReads[0];
  const windowRead = rowReads[ROWS_PER_MINUTE];
  if (!firstRead) throw new Error('the emulator logged no row request');
  const rowsPhaseMs = run.endedAt - firstRead.at;
  const windowGap = windowRead ? windowRead.at - firstRead.at : NaN;
  console.log(
    `rate-limited export at ${latencyMs} ms round trip (${LIMITED_ROWS.toLocaleString('en-US')} rows, ${requests} pages, rate scale ${RATE_SCALE}): ` +
      `${seconds(run.ms)} in all, ${seconds(rowsPhaseMs)} from the first row request to the end; ideal ${seconds(idealMs)} ` +
      `(${seconds(windows * windowMs)} of windows + ${requests - windows * ROWS_PER_MINUTE} chained pages x ${latencyMs} ms); ` +
      `read ${ROWS_PER_MINUTE + 1} ${seconds(windowGap)} after the first; ${rowReads.length} row requests, ${throttled} answered 429`,
  );
  check(rowsPhaseMs <= idealMs * 1.05, `rows phase at ${latencyMs} ms ${(rowsPhaseMs / idealMs).toFixed(3)}x the ideal (target <= 1.05x)`);
  if (windowRead)
    check(
      windowGap <= windowMs * 1.05,
      `read ${ROWS_PER_MINUTE + 1} at ${latencyMs} ms ${(windowGap / windowMs).toFixed(3)}x a window after the first (target <= 1.05x)`,
    );
  check(throttled <= 1, `${throttled} 429s at ${latencyMs} ms (target <= 1)`);
  await limited.stop();
}
