#!/usr/bin/env node
// @ts-check
// `tds diff` on its own (the sync bench's phase 1b measures it once, after its passes): the CHANGED (100,000) rows
// updated of the ROWS (1,000,000) of Generated, `tds diff Generated -o FILE.ndjson`, timed, its CPU and peak RSS.
// Targets (issue 46): <= 2 s and <= 250 MB peak RSS (medians), one record per changed row.
//
// The mirror: `tds sync Generated` from an emulator child with `--rows ROWS --no-rate-limits`, then CHANGED rows'
// Amount changed through the admin route (PATCH, 32 at a time) and `tds sync --full` (each replaced version into
// generated__history), as phase 1b does; or BENCH_MIRROR, an existing such mirror (made there when missing, kept).
// With BENCH_BASELINE (another build's bin/tds.js), its `tds diff` and this one's alternate in pairs (--repeat N,
// at least 5), and their outputs must be byte-identical; without it, this one runs N times.
//
// Run: npm run bench -- diff [--repeat N]    (exits 1 when a target is missed; traffic only to 127.0.0.1)
// Env: BENCH_ROWS (1000000), BENCH_CHANGED (100000), BENCH_MIRROR, BENCH_BASELINE.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fetchJson } from './emulator-api.mjs';
import { changeRows } from './sync/history.mjs';
import { TDS_BIN, load, mb, median, n, pairedRuns, repeats, seconds, spread, startEmulator, verdict } from './support.mjs';
import { mustSucceed, runTds, tdsEnv } from './tds-child.mjs';

/** @typedef {import('./support.mjs').Emulator} Emulator */
/** @typedef {import('./tds-child.mjs').TdsRun} TdsRun */

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const CHANGED = Number(process.env.BENCH_CHANGED ?? 100_000);
const PAIRS = repeats(5);
const TARGET = { seconds: 2, peakMb: 250 };
const BASELINE = process.env.BENCH_BASELINE;
const FAST = { TDS_RATE_SCALE: '1000000' };

const dir = mkdtempSync(join(tmpdir(), 'tds-diff-bench-'));
const mirror = process.env.BENCH_MIRROR ?? join(dir, 'mirror.duckdb');
/** @type {Emulator[]} */
const emulators = [];
const { check, missed } = verdict();

/** The mirror of Generated with CHANGED rows updated by its last sync, unless BENCH_MIRROR has it already. */
async function makeMirror() {
  if (existsSync(mirror)) return console.log(`the mirror: ${mirror} (kept from an earlier run)`);
  const emu = await startEmulator(['--rows', String(ROWS), '--no-rate-limits', '--seed', 'empty'], emulators);
  const env = tdsEnv({ dir, emulator: emu, extra: FAST });
  const started = performance.now();
  mustSucceed(await runTds(['sync', 'Generated', '--db', mirror], { env, dir }), 'tds sync');
  const synced = performance.now();
  /** @type {{ tables: Array<{ id: string, name: string }> }} */
  const listing = await fetchJson(emu, 'GET', '/v1/tables');
  const table = listing.tables.find((t) => t.name === 'Generated');
  if (!table) throw new Error('no table Generated in the emulator');
  const ids = await sampleIds(env);
  await changeRows(emu, table, ids);
  mustSucceed(await runTds(['sync', 'Generated', '--db', mirror, '--full'], { env, dir }), 'tds sync --full');
  console.log(
    `the mirror: tds sync of ${n(ROWS)} rows in ${seconds(synced - started)}; ${n(ids.length)} changed and synced in ${seconds(performance.now() - synced)}`,
  );
  await emu.stop();
}

/** CHANGED row IDs of the mirror, a seeded sample. */
async function sampleIds(/** @type {NodeJS.ProcessEnv} */ env) {
  const query = `SELECT "_id" FROM generated USING SAMPLE ${CHANGED} ROWS (reservoir, 7)`;
  const run = await runTds(['sql', query, '--db', mirror, '--format', 'csv'], { env, dir });
  mustSucceed(run, 'tds sql');
  return run.stdout.trim().split('\n').slice(1);
}

/**
 * One `tds diff Generated -o FILE.ndjson` of BIN; the run, and the output's bytes.
 * @param {string} bin
 * @param {string} name
 * @returns {Promise<{ run: TdsRun, bytes: Buffer }>}
 */
async function diffOnce(bin, name) {
  const out = join(dir, `${name}.ndjson`);
  const run = await runTds(['diff', 'Generated', '--db', mirror, '-o', out], { env: tdsEnv({ dir }), dir, probe: name, bin });
  mustSucceed(run, `tds diff (${name})`);
  const bytes = readFileSync(out);
  rmSync(out, { force: true });
  console.log(
    `   ${name}: ${seconds(run.ms)}, CPU ${run.cpuSeconds.toFixed(1)} s, peak RSS ${mb(run.peakKb)}, ${n(lines(bytes))} records (load ${load()})`,
  );
  return { run, bytes };
}

const lines = (/** @type {Buffer} */ bytes) => bytes.toString('utf8').split('\n').filter(Boolean).length;

/** @type {TdsRun[]} */
const runs = [];
/** @type {Buffer | undefined} */
let expected;
let differing = 0;
console.log(`load average before: ${load()}`);
try {
  await makeMirror();
  console.log(
    `\ntds diff Generated -o FILE.ndjson (${n(CHANGED)} updated of ${n(ROWS)}). Targets: <= ${TARGET.seconds} s, <= ${TARGET.peakMb} MB (medians)`,
  );
  const measure = async (/** @type {string} */ bin, /** @type {string} */ name) => {
    const { run, bytes } = await diffOnce(bin, name);
    if (name === 'this') {
      runs.push(run);
      check(lines(bytes) === CHANGED, `one record per changed row (${n(lines(bytes))})`);
    }
    if (expected === undefined) expected = bytes;
    else if (!expected.equals(bytes)) differing += 1;
    return run.cpuSeconds * 1000;
  };
  if (BASELINE) {
    await pairedRuns({
      a: { name: 'baseline tds diff (CPU)', run: () => measure(BASELINE, 'baseline') },
      b: { name: 'this tds diff (CPU)', run: () => measure(TDS_BIN, 'this') },
      pairs: PAIRS,
    });
    check(differing === 0, `the two builds' outputs byte-identical (${differing} runs differ)`);
  } else for (let i = 0; i < PAIRS; i += 1) await measure(TDS_BIN, 'this');
  console.log(`   this tds diff: wall ${spread(runs.map((run) => run.ms))}, CPU ${spread(runs.map((run) => run.cpuSeconds * 1000))}`);
  const ms = median(runs.map((run) => run.ms));
  const peakKb = median(runs.map((run) => run.peakKb));
  check(ms <= TARGET.seconds * 1000, `tds diff ${seconds(ms)} (median; target <= ${TARGET.seconds} s)`);
  check(
    peakKb <= TARGET.peakMb * 1024,
    `tds diff peak RSS ${mb(peakKb)} (median; target <= ${TARGET.peakMb} MB); last run: ${runs.at(-1)?.memory}`,
  );
} finally {
  await Promise.all(emulators.map((emu) => emu.stop()));
  rmSync(dir, { recursive: true, force: true });
  console.log(`load average after: ${load()}`);
}
process.exitCode = missed() ? 1 : 0;
