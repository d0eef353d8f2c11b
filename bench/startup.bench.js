#!/usr/bin/env node
// @ts-check
// Start-up: how long a whole `tds` process takes for what loads least, measured from spawn to exit (or, for
// `tds mcp`, to the answer of `initialize`). Targets (from issue 46), medians of paired runs:
//
// 1. `tds --version` and `tds --help`: <= 150 ms.
// 2. `tds sql "select count(*) from leads"` on a mirror of the demo's 250-row Leads: <= 350 ms.
// 3. `tds mcp`: the answer of `initialize` <= 300 ms after spawn (also in the mcp bench, with query_sql).
//
// Each figure runs paired with a baseline, alternating (A B A B …, --repeat N pairs, at least 5): `node -e 0`
// (bare Node's own start-up, for `initialize` a Node that answers a line), or with BENCH_BASELINE=PATH/bin/tds.js
// the same command from another build of tds (old against new: the ratio says what a change gained). Wall time is
// the target; CPU time (user + system, at exit) is printed too, steadier on a busy machine, and the modules each
// run loaded (files and built-ins, by a load hook in a run of its own), a count no load on the machine changes.
//
// Run: npm run bench -- startup [--repeat N]     (exits 1 when a target is missed; traffic only to 127.0.0.1)
// Env: BENCH_BASELINE (another build's bin/tds.js to compare with).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createInterface } from 'node:readline';
import { TDS_BIN, cpuMsOf, median, pairedRuns, repeats, startEmulator, verdict } from './support.mjs';

/** @typedef {import('./support.mjs').Emulator} Emulator */
/** One run: wall ms from spawn to exit (or the answer), CPU ms, peak RSS kB. @typedef {{ ms: number, cpuMs: number, rssKb: number }} Run */

const TARGET = { versionMs: 150, helpMs: 150, sqlMs: 350, initializeMs: 300 };
const CPU_AT_EXIT = fileURLToPath(new URL('./cpu-at-exit.mjs', import.meta.url));
const BASELINE = process.env.BENCH_BASELINE;
const PAIRS = repeats(9);
const INITIALIZE = `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } })}\n`;

const dir = mkdtempSync(join(tmpdir(), 'tds-startup-bench-'));
const mirror = join(dir, 'mirror.duckdb');
/** @type {Emulator[]} */
const emulators = [];
const { check, missed } = verdict();

/** This process's environment without TDS_*, with a config folder of the bench's own. */
function env(/** @type {Record<string, string>} */ extra = {}) {
  /** @type {Record<string, string>} */
  const clean = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined && !key.startsWith('TDS_')) clean[key] = value;
  return { ...clean, NO_COLOR: '1', TDS_CONFIG_DIR: join(dir, 'config'), ...extra };
}

let runs = 0;
/** What a run adds to Node's command line and environment: nothing, or the load hook (modulesLoaded). @typedef {{ nodeOptions: string[], env: Record<string, string> }} Probe */
/** @type {Probe} */
const NO_PROBE = { nodeOptions: [], env: {} };

/**
 * `node ARGS` to its exit: wall time, and CPU and peak RSS as cpu-at-exit.mjs saw them.
 * @param {string[]} args
 * @returns {Promise<Run>}
 */
function toExit(args, extraEnv = {}, probe = NO_PROBE) {
  const report = join(dir, `cpu-${(runs += 1)}.json`);
  const started = performance.now();
  const child = spawn(process.execPath, [...probe.nodeOptions, '--import', CPU_AT_EXIT, ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: env({ ...extraEnv, ...probe.env, BENCH_CPU_AT_EXIT: report }),
  });
  let stderr = '';
  child.stderr.on('data', (/** @type {Buffer} */ chunk) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => {
      const ms = performance.now() - started;
      if (code !== 0) return reject(new Error(`node ${args.join(' ')} exited with ${code}: ${stderr}`));
      const { cpuMs, maxRssKb } = /** @type {{ cpuMs: number, maxRssKb: number }} */ (JSON.parse(readFileSync(report, 'utf8')));
      resolve({ ms, cpuMs, rssKb: maxRssKb });
    });
  });
}

/**
 * `node BIN mcp` (or a bare Node that answers a line, as the baseline) until its first line on stdout: wall time,
 * and the CPU it had used by then.
 * @param {string[]} args
 * @returns {Promise<Run>}
 */
function toFirstLine(args, probe = NO_PROBE) {
  const started = performance.now();
  const child = spawn(process.execPath, [...probe.nodeOptions, ...args], {
    stdio: ['pipe', 'pipe', 'ignore'],
    env: env({ TDS_DB: join(dir, 'none.duckdb'), ...probe.env }),
  });
  child.stdin.write(INITIALIZE);
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`node ${args.join(' ')} exited with ${code} before answering`)));
    createInterface({ input: child.stdout }).once('line', () => {
      const ms = performance.now() - started;
      const cpuMs = cpuMsOf(/** @type {number} */ (child.pid)) ?? Number.NaN;
      child.removeAllListeners('exit');
      child.stdin.end();
      child.once('exit', () => resolve({ ms, cpuMs, rssKb: 0 }));
    });
  });
}

// A load hook (node --import) that appends each module's URL to BENCH_LOAD_LOG: what a run loaded.
writeFileSync(
  join(dir, 'load-hooks.mjs'),
  `import { appendFileSync } from 'node:fs';
export async function load(url, context, next) { appendFileSync(process.env.BENCH_LOAD_LOG, url + '\\n'); return next(url, context); }
`,
);
writeFileSync(join(dir, 'load-register.mjs'), `import { register } from 'node:module';\nregister('./load-hooks.mjs', import.meta.url);\n`);
const LOAD_HOOK = pathToFileURL(join(dir, 'load-register.mjs')).href;

/**
 * How many modules a run loads (ES modules and built-ins), in a run of its own with the load hook.
 * @param {(probe: Probe) => Promise<Run>} measure
 */
async function modulesLoaded(measure) {
  const log = join(dir, `loaded-${(runs += 1)}.txt`);
  writeFileSync(log, '');
  await measure({ nodeOptions: ['--import', LOAD_HOOK], env: { BENCH_LOAD_LOG: log } });
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter((url) => url.startsWith('file:') || url.startsWith('node:')).length;
}

/** Bare Node answering one line: what any stdio server costs before its own code. */
const ECHO_LINE = ['-e', "process.stdin.once('data', () => process.stdout.write('{}\\n')); process.stdin.on('end', () => process.exit(0))"];

/**
 * One figure: `tds ARGS` paired with its baseline; checks the median wall time of this tds against `targetMs`.
 * @param {{ title: string, targetMs: number, measure: (bin: string | undefined, probe?: Probe) => Promise<Run> }} figure
 */
async function figure({ title, targetMs, measure }) {
  console.log(`\n${title}. Target: median <= ${targetMs} ms after spawn`);
  /** @type {Run[]} */
  const ours = [];
  /** @type {Run[]} */
  const theirs = [];
  const side = (/** @type {string} */ name, /** @type {string | undefined} */ bin, /** @type {Run[]} */ into) => ({
    name,
    run: async () => {
      const run = await measure(bin);
      into.push(run);
      return run.ms;
    },
  });
  const pairs = await pairedRuns({
    a: side(BASELINE ? 'baseline tds' : 'bare node', BASELINE, theirs),
    b: side('this tds', TDS_BIN, ours),
    pairs: PAIRS,
  });
  const cpu = (/** @type {Run[]} */ runs) => Math.round(median(runs.map((run) => run.cpuMs)));
  const rss = (/** @type {Run[]} */ runs) => Math.round(median(runs.map((run) => run.rssKb)) / 1024);
  console.log(
    `   CPU (median): ${BASELINE ? 'baseline tds' : 'bare node'} ${cpu(theirs)} ms, this tds ${cpu(ours)} ms` +
      (ours[0]?.rssKb ? `; peak RSS: ${rss(theirs)} MB, ${rss(ours)} MB` : ''),
  );
  const label = BASELINE ? 'baseline tds' : 'bare node';
  const [before, after] = [
    await modulesLoaded((probe) => measure(BASELINE, probe)),
    await modulesLoaded((probe) => measure(TDS_BIN, probe)),
  ];
  console.log(`   modules loaded (files and built-ins): ${label} ${before}, this tds ${after}`);
  check(median(pairs.b) <= targetMs, `${title}: ${Math.round(median(pairs.b))} ms after spawn (median; target <= ${targetMs} ms)`);
}

/** The demo's Leads (250 rows) synced from an emulator child into the bench's mirror. */
async function makeMirror() {
  if (existsSync(mirror)) return;
  const emu = await startEmulator(['--seed', 'demo'], emulators);
  const synced = await toExit([TDS_BIN, 'sync', 'Leads', '--db', mirror], { TDS_BASE_URL: emu.baseUrl, TDS_API_KEY: emu.apiKey });
  console.log(`the mirror: tds sync Leads (250 rows) in ${Math.round(synced.ms)} ms`);
  await emu.stop();
}

const SQL = 'select count(*) from leads';
try {
  await figure({
    title: '1. tds --version',
    targetMs: TARGET.versionMs,
    measure: (bin, probe) => toExit(bin ? [bin, '--version'] : ['-e', '0'], {}, probe),
  });
  await figure({
    title: '1. tds --help',
    targetMs: TARGET.helpMs,
    measure: (bin, probe) => toExit(bin ? [bin, '--help'] : ['-e', '0'], {}, probe),
  });
  await makeMirror();
  await figure({
    title: `2. tds sql "${SQL}" on the 250-row mirror`,
    targetMs: TARGET.sqlMs,
    measure: (bin, probe) => toExit(bin ? [bin, 'sql', SQL, '--db', mirror, '--format', 'csv'] : ['-e', '0'], {}, probe),
  });
  await figure({
    title: '3. tds mcp: spawn to the answer of initialize',
    targetMs: TARGET.initializeMs,
    measure: (bin, probe) => toFirstLine(bin ? [bin, 'mcp'] : ECHO_LINE, probe),
  });
} finally {
  await Promise.all(emulators.map((emu) => emu.stop()));
  rmSync(dir, { recursive: true, force: true });
}
process.exit(missed() ? 1 : 0);
