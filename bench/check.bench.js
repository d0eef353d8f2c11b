#!/usr/bin/env node
// @ts-check
// `tds check` on the mirror of the 1,000,000-row generated table: ten checks of every kind (and a
// schema contract), beside `tds stats` on the same mirror in the same run.
//
// 1. Emulator child with rate limits off and `--rows N`; `tds sync Generated --db FILE` builds the mirror
//    (as the stats bench does). The generated table has no action column: the bench adds one to the
//    mirror (`Enrich` and `Enrich.status`, run states spread over the rows by their ID's hash, the
//    `_tds_columns` row a sync would have written), so that failure_rate and stuck have cells to count.
// 2. Three rounds, each: `tds check checks.yaml --no-sync --format json` and `tds stats Generated
//    --no-sync --format json`, both as children on the same file; wall time, CPU time and peak RSS
//    (VmHWM) of each. The medians count. Targets: check <= 3 s wall, <= 300 MB peak RSS.
//
// Run: npm run bench -- check     (exits 1 when a target is missed; traffic only to 127.0.0.1)
// Wall times follow the machine's load: the load average is printed before and after, and each run's CPU time.
// Env: BENCH_ROWS (default 1000000), BENCH_ROUNDS (3).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { load, mb, median, n, seconds, startEmulator, verdict } from './support.mjs';
import { mustSucceed, runTds, tdsEnv } from './tds-child.mjs';

/** @typedef {import('./support.mjs').Emulator} Emulator */
/** @typedef {import('./tds-child.mjs').TdsRun} TdsRun */

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const FAST = { TDS_RATE_SCALE: '1000000' };
const TARGET = { checkSeconds: 3, checkPeakMb: 300 };
const KINDS = 9;
const EACH = 10;

/** @type {Emulator[]} */
const emulators = [];
const dir = mkdtempSync(join(tmpdir(), 'tds-check-bench-'));
const db = join(dir, 'mirror.duckdb');
const checksFile = join(dir, 'checks.yaml');
const { check, missed } = verdict();

console.log(`load average before: ${load()} on ${availableParallelism()} CPUs`);
try {
  await buildMirror();
  writeFileSync(checksFile, checksYaml());
  await compare();
} finally {
  await Promise.all(emulators.map((emulator) => emulator.stop()));
  rmSync(dir, { recursive: true, force: true });
}
console.log(`load average after: ${load()}`);
process.exit(missed() ? 1 : 0);

async function buildMirror() {
  const started = performance.now();
  const emu = await startEmulator(['--no-rate-limits', '--rows', String(ROWS)], emulators);
  mustSucceed(await runTds(['sync', 'Generated', '--db', db], { env: tdsEnv({ dir, emulator: emu, extra: FAST }), dir }), 'tds sync');
  await emu.stop();
  const sql = [
    'ALTER TABLE generated ADD COLUMN "Enrich" JSON',
    'ALTER TABLE generated ADD COLUMN "Enrich.status" VARCHAR',
    'ALTER TABLE generated ADD COLUMN "Enrich.error" VARCHAR',
    `UPDATE generated SET "Enrich.status" = ['success', 'success', 'success', 'success', 'success', 'success', 'failed', 'skipped', 'queued', NULL][CAST(hash(_id) % 10 AS INTEGER) + 1]`,
    `INSERT INTO _tds_columns SELECT table_id, 'fld_enrich', 99, 'Enrich', 'Enrich.status', 'Enrich.error', 'Enrich', 'enrich', 'action', NULL, false, false FROM _tds_tables WHERE mirror_table = 'generated'`,
  ];
  for (const statement of sql)
    mustSucceed(await runTds(['sql', statement, '--db', db, '--write'], { env: tdsEnv({ dir }), dir }), statement);
  console.log(`\n1. mirror of ${n(ROWS)} rows with an action column, in ${seconds(performance.now() - started)}`);
}

/** Ten checks of each kind, over different columns and thresholds, and the schema contract. */
function checksYaml() {
  const columns = ['Name', 'Email', 'Amount', 'Active', 'Signed Up', 'Plan', 'Notes', 'Enrich'];
  const lines = [
    'tables:',
    '  Generated:',
    '    schema:',
    '      fields: {Name: text, Email: email, Amount: number, Active: boolean, Signed Up: date, Plan: select, Notes: text, Enrich: action}',
    '    checks:',
  ];
  for (let i = 0; i < EACH; i += 1) {
    const column = columns[i % columns.length];
    lines.push(
      `      - rows: {min: ${i * 1000}, max: ${ROWS * 2}}`,
      `      - fill: {column: "${column}", min: 0.${i}}`,
      `      - unique: "${columns[i % 7]}"`,
      `      - accepted: {column: Plan, values: [Free, Pro, Team${i % 2 ? ', Enterprise' : ''}]}`,
      `      - failure_rate: {column: Enrich, max: 0.${i + 1}, since: ${i + 1}d}`,
      `      - stuck: {column: Enrich, max_age: ${i + 1}h}`,
      `      - activity: {max_quiet: ${i + 1}d}`,
      `      - fresh: {max_age: ${i + 1}h}`,
      `      - sql: {name: q${i}, query: "SELECT _id FROM generated WHERE Amount < ${i * 10}", max: ${ROWS}}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

async function compare() {
  console.log(
    `\n2. tds check (${KINDS} kinds × ${EACH} checks and a schema contract) vs tds stats, ${ROUNDS} rounds. Targets: check <= ${TARGET.checkSeconds} s, peak RSS <= ${TARGET.checkPeakMb} MB (medians)`,
  );
  /** @type {TdsRun[]} */
  const checks = [];
  /** @type {TdsRun[]} */
  const stats = [];
  for (let round = 1; round <= ROUNDS; round += 1) {
    const checked = await onMirror(['check', checksFile, '--no-sync', '--db', db, '--format', 'json'], `check-${round}`);
    if (checked.code !== 0 && checked.code !== 9) mustSucceed(checked, 'tds check');
    const profiled = await onMirror(['stats', 'Generated', '--no-sync', '--db', db, '--format', 'json'], `stats-${round}`);
    mustSucceed(profiled, 'tds stats');
    checks.push(checked);
    stats.push(profiled);
    console.log(
      `round ${round}: tds check ${seconds(checked.ms)} (CPU ${checked.cpuSeconds.toFixed(1)} s), peak RSS ${mb(checked.peakKb)}; ` +
        `tds stats ${seconds(profiled.ms)} (CPU ${profiled.cpuSeconds.toFixed(1)} s), peak RSS ${mb(profiled.peakKb)}`,
    );
  }
  /** @type {Array<{status: string}>} */
  const results = JSON.parse(checks[0]?.stdout ?? '[]');
  const counts = results.reduce(
    (acc, result) => ({ ...acc, [result.status]: (acc[result.status] ?? 0) + 1 }),
    /** @type {Record<string, number>} */ ({}),
  );
  check(results.length === KINDS * EACH + 1, `${results.length} results (${JSON.stringify(counts)})`);
  const checkMs = median(checks.map((run) => run.ms));
  const worst = checks.reduce((a, b) => (b.peakKb > a.peakKb ? b : a));
  check(
    checkMs <= TARGET.checkSeconds * 1000,
    `tds check ${seconds(checkMs)} (median; target <= ${TARGET.checkSeconds} s); tds stats ${seconds(median(stats.map((run) => run.ms)))}`,
  );
  check(
    worst.peakKb <= TARGET.checkPeakMb * 1024,
    `tds check peak RSS ${mb(worst.peakKb)} (target <= ${TARGET.checkPeakMb} MB); ${worst.memory}`,
  );
}

/** @param {string[]} args @param {string} probe */
function onMirror(args, probe) {
  return runTds(args, { env: tdsEnv({ dir }), dir, probe, sampleMs: 20 });
}
