#!/usr/bin/env node
// @ts-check
// `tds sync`: a full mirror of the 1,000,000-row table against the CSV export of it, an incremental sync
// under the real row-read limit, and the cost of an idle `--follow` poll. Targets (from the issue):
//
// 1. Emulator child with rate limits off, `--rows 1000000` and `--data FILE` (its state is saved on stop).
//    `tds rows Generated --format csv -o FILE`, then a full `tds sync Generated --db FILE` into a fresh file,
//    both with TDS_RATE_SCALE high enough that client pacing never waits.
//    Targets: sync time <= 1.5x the export's time (same run, same emulator); sync peak RSS <= 300 MB.
// 2. Emulator child from the same --data file with its real limits (scale 1); 1,000 new rows added (admin
//    route); `tds sync --db FILE` (incremental, the client's real pacing).
//    Targets: <= 12 row requests (a re-export would need 10,000); wall time <= 15 s.
// 1b. History, on the same emulator child and mirror as 1: a `--full` pass with no row changed; then
//    CHANGED rows (100,000) changed through the emulator's admin route (PATCH, 32 at a time); the same
//    `--full` pass again, which moves each replaced version into generated__history.
//    Targets: the changed pass <= 1.2x the unchanged one (same run); its peak RSS <= 300 MB; the mirror
//    file after it <= 1.3x its size before it; the unchanged pass adds 0 rows (and 0 bytes) of history.
//    Then `tds diff Generated -o FILE.ndjson` (the CHANGED updated rows): <= 5 s and <= 300 MB peak RSS.
// 3. Emulator child from the --data file saved by 2 (real limits): `tds sync --follow --every 3` on the
//    mirror, idle, its polls counted in the emulator's request log. (a) Within a minute of the 1,000-row
//    burst of 2: reported, no target. A sync reads again the rows created in the minute before it began
//    (the watermark margin: webhook rows show up to 30 s late with their arrival time, and the local
//    clock may run ahead), so these polls read the burst again until it is older than that.
//    (b) After the clock moved 2 minutes and one row came (the burst older than the margin).
//    Target: one row request per poll. Then SIGINT.
//
// Run: npm run bench -- sync     (exits 1 when a target is missed; traffic only to 127.0.0.1)
// Env: BENCH_ROWS (default 1000000), BENCH_CHANGED (100000), BENCH_ADDED (1000), BENCH_POLLS (3), BENCH_EVERY (seconds, 3),
// BENCH_HEAP_SNAPSHOT_MB / BENCH_TRACE_GC (see memory-probe.mjs).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import {
  MEMORY_PROBE,
  TDS_BIN,
  describeProbe,
  emulatorCpuMs,
  load,
  mb,
  n,
  rate,
  readProbe,
  seconds,
  startEmulator,
  verdict,
} from './support.mjs';

/** @typedef {import('#dist/service/index.js').Table} Table */
/** @typedef {import('#dist/service/index.js').TablesResponse} TablesResponse */
/** @typedef {import('#dist/mirror/sync-summary.js').SyncSummary} SyncSummary */
/** @typedef {import('./support.mjs').Emulator} Emulator */
/** One entry of the emulator's request log (GET /_emulator/requests), the fields this bench reads. @typedef {{ at: number, status: number, bucket?: string }} LoggedRequest */
/**
 * One tds child: how it ended, what it printed, its wall time, its peak RSS (VmHWM, or getrusage at exit) and what
 * memory-probe.mjs saw at that peak.
 * @typedef {{ code: number | null, signal: string | null, stdout: string, stderr: string, ms: number, startedAt: number, endedAt: number, peakKb: number, cpuSeconds: number, memory: string }} TdsRun
 */

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const ADDED = Number(process.env.BENCH_ADDED ?? 1_000);
const CHANGED = Number(process.env.BENCH_CHANGED ?? 100_000);
const POLLS = Number(process.env.BENCH_POLLS ?? 3);
const EVERY_SECONDS = Number(process.env.BENCH_EVERY ?? 3);
const PAGE = 100;
const FAST = { TDS_RATE_SCALE: '1000000' }; // client pacing never waits (the emulator has no limits)
const PROGRESS_MS = 15_000;
/** How far phase 3 (b) moves the emulator's clock: more than the sync's watermark margin (60 s). */
const AGE_MS = 120_000;

const TARGET = {
  syncVsExport: 1.5,
  syncPeakMb: 300,
  incrementalRequests: 12,
  incrementalSeconds: 15,
  requestsPerIdlePoll: 1,
  changedVsUnchanged: 1.2,
  fileGrowth: 1.3,
  diffSeconds: 5,
  diffPeakMb: 300,
};

/** @type {Emulator[]} every emulator started, stopped at the end whatever happened */
const emulators = [];
/** @type {Array<() => void>} children to end if the bench fails midway */
const cleanups = [];
const dir = mkdtempSync(join(tmpdir(), 'tds-sync-bench-'));
const stateFile = join(dir, 'emulator-state.json');
const db = join(dir, 'mirror.duckdb');
const { check, missed } = verdict();

console.log(`load average before: ${load()} on ${availableParallelism()} CPUs`);
try {
  await fullSync();
  await incrementalSync();
  await idleFollow();
} finally {
  // A phase that threw left children running; none outlives the bench.
  for (const cleanup of cleanups) cleanup();
  await Promise.all(emulators.map((emulator) => emulator.stop()));
  rmSync(dir, { recursive: true, force: true });
}
console.log(`load average after: ${load()}`);
process.exit(missed() ? 1 : 0);

/** Phase 1: the full sync against the CSV export of the same table, rate limits off. */
async function fullSync() {
  console.log(
    `\n1. full sync of ${n(ROWS)} rows, rate limits off. Targets: sync time <= ${TARGET.syncVsExport}x the CSV export's; ` +
      `sync peak RSS <= ${TARGET.syncPeakMb} MB`,
  );
  const loadStart = performance.now();
  const fast = await startEmulator(['--no-rate-limits', '--rows', String(ROWS), '--data', stateFile], emulators);
  const table = await generatedTable(fast);
  console.log(`emulator child: ${n(table.rowCount)} rows ready in ${seconds(performance.now() - loadStart)}`);
  await warmUp(fast, table);

  const csv = join(dir, 'export.csv');
  const exportEmuCpu = emulatorCpuMs(fast);
  const exported = await runTds(['rows', table.id, '--format', 'csv', '-o', csv], { env: FAST, probe: 'export' });
  mustSucceed(exported, 'tds rows --format csv');
  console.log(
    `tds rows ${table.name} --format csv -o export.csv: ${seconds(exported.ms)} = ${rate(ROWS, exported.ms)}, ` +
      `${(statSync(csv).size / 1e6).toFixed(0)} MB written, peak RSS ${mb(exported.peakKb)}; ` +
      `CPU: tds ${exported.cpuSeconds.toFixed(1)} s, emulator ${seconds(emulatorCpuMs(fast) - exportEmuCpu)}`,
  );
  rmSync(csv, { force: true });

  const syncEmuCpu = emulatorCpuMs(fast);
  const progress = startProgress(fast);
  const synced = await runTds(['sync', table.id, '--db', db, '--json'], { env: FAST, probe: 'sync' }).finally(progress.stop);
  mustSucceed(synced, 'tds sync (full)');
  const result = onlyTable(synced);
  console.log(
    `tds sync ${table.name} --db mirror.duckdb (fresh file): ${seconds(synced.ms)} = ${rate(ROWS, synced.ms)}; ` +
      `${result.mode}, ${n(result.requests)} requests, ${n(result.inserted)} inserted, sync's own figure ${result.seconds} s; ` +
      `mirror ${(statSync(db).size / 1e6).toFixed(0)} MB, peak RSS ${mb(synced.peakKb)}; ` +
      `CPU: tds ${synced.cpuSeconds.toFixed(1)} s, emulator ${seconds(emulatorCpuMs(fast) - syncEmuCpu)}`,
  );
  check(
    result.mode === 'full' && result.complete && result.inserted === table.rowCount,
    `every row mirrored (${n(result.inserted)} inserted)`,
  );
  const ratio = synced.ms / exported.ms;
  check(ratio <= TARGET.syncVsExport, `sync time ${ratio.toFixed(2)}x the CSV export (target <= ${TARGET.syncVsExport}x)`);
  check(
    synced.peakKb <= TARGET.syncPeakMb * 1024,
    `sync peak RSS ${mb(synced.peakKb)} (target <= ${TARGET.syncPeakMb} MB); ${synced.memory}`,
  );
  await history(fast, table);
  await fast.stop(); // saves --data for phase 2
}

/**
 * Phase 1b: a --full pass over the mirror with no row changed, then with CHANGED rows changed; the diff.
 * @param {Emulator} fast
 * @param {Table} table
 */
async function history(fast, table) {
  console.log(
    `\n1b. history: --full with no row changed, then with ${n(CHANGED)} rows changed (admin route), rate limits off. Targets: ` +
      `changed pass <= ${TARGET.changedVsUnchanged}x the unchanged one, peak RSS <= ${TARGET.syncPeakMb} MB, mirror file <= ${TARGET.fileGrowth}x; ` +
      `no history from the unchanged pass; tds diff <= ${TARGET.diffSeconds} s and <= ${TARGET.diffPeakMb} MB`,
  );
  const sizeBefore = statSync(db).size;
  const unchanged = await runTds(['sync', table.id, '--db', db, '--full', '--json'], { env: FAST, probe: 'full-unchanged' });
  mustSucceed(unchanged, 'tds sync --full (unchanged)');
  const sizeUnchanged = statSync(db).size;
  const versionsAfterUnchanged = await scalar('SELECT count(*) FROM generated__history');
  console.log(
    `tds sync --full, nothing changed: ${seconds(unchanged.ms)}, peak RSS ${mb(unchanged.peakKb)}; ${onlyTable(unchanged).updated} updated; ` +
      `history ${n(versionsAfterUnchanged)} versions; mirror ${(sizeBefore / 1e6).toFixed(0)} MB -> ${(sizeUnchanged / 1e6).toFixed(0)} MB`,
  );
  check(versionsAfterUnchanged === 0, `the unchanged pass adds no version (${n(versionsAfterUnchanged)} in the history)`);

  const changeStart = performance.now();
  const ids = (await tdsSql(`SELECT "_id" FROM generated USING SAMPLE ${CHANGED} ROWS (reservoir, 7)`)).map((row) => row[0] ?? '');
  await changeRows(fast, table, ids);
  console.log(`${n(ids.length)} rows changed through the admin route in ${seconds(performance.now() - changeStart)}`);

  const changed = await runTds(['sync', table.id, '--db', db, '--full', '--json'], { env: FAST, probe: 'full-changed' });
  mustSucceed(changed, 'tds sync --full (changed)');
  const sizeChanged = statSync(db).size;
  const versions = await scalar('SELECT count(*) FROM generated__history');
  console.log(
    `tds sync --full, ${n(CHANGED)} changed: ${seconds(changed.ms)}, peak RSS ${mb(changed.peakKb)}; ${onlyTable(changed).updated} updated; ` +
      `history ${n(versions)} versions; mirror ${(sizeUnchanged / 1e6).toFixed(0)} MB -> ${(sizeChanged / 1e6).toFixed(0)} MB; ${changed.memory}`,
  );
  check(versions === ids.length, `every replaced version in the history (${n(versions)})`);
  const ratio = changed.ms / unchanged.ms;
  check(
    ratio <= TARGET.changedVsUnchanged,
    `changed pass ${ratio.toFixed(2)}x the unchanged one (target <= ${TARGET.changedVsUnchanged}x)`,
  );
  check(changed.peakKb <= TARGET.syncPeakMb * 1024, `changed pass peak RSS ${mb(changed.peakKb)} (target <= ${TARGET.syncPeakMb} MB)`);
  const growth = sizeChanged / sizeUnchanged;
  check(growth <= TARGET.fileGrowth, `mirror file ${growth.toFixed(2)}x its size before (target <= ${TARGET.fileGrowth}x)`);

  const out = join(dir, 'diff.ndjson');
  const diffed = await runTds(['diff', table.id, '--db', db, '-o', out], { probe: 'diff' });
  mustSucceed(diffed, 'tds diff');
  const records = readFileSync(out, 'utf8').split('\n').filter(Boolean).length;
  console.log(
    `tds diff Generated -o diff.ndjson: ${seconds(diffed.ms)}, peak RSS ${mb(diffed.peakKb)}, ${n(records)} records; ${diffed.memory}`,
  );
  rmSync(out, { force: true });
  check(records === ids.length, `one record per changed row (${n(records)})`);
  check(diffed.ms <= TARGET.diffSeconds * 1000, `tds diff ${seconds(diffed.ms)} (target <= ${TARGET.diffSeconds} s)`);
  check(diffed.peakKb <= TARGET.diffPeakMb * 1024, `tds diff peak RSS ${mb(diffed.peakKb)} (target <= ${TARGET.diffPeakMb} MB)`);
}

/**
 * Changes the Amount of each row (admin PATCH, 32 requests at a time).
 * @param {Emulator} emu
 * @param {Table} table
 * @param {string[]} ids
 */
async function changeRows(emu, table, ids) {
  let next = 0;
  const worker = async () => {
    while (next < ids.length) {
      const id = ids[next++];
      await fetchJson(emu, 'PATCH', `/_emulator/tables/${table.id}/rows/${id}`, { cells: { Amount: -1 - next } });
    }
  };
  await Promise.all(Array.from({ length: 32 }, worker));
}

/**
 * A query's rows through `tds sql --format csv` (header dropped; fields split at commas: for IDs and numbers).
 * @param {string} query
 * @returns {Promise<string[][]>}
 */
async function tdsSql(query) {
  const run = await runTds(['sql', query, '--db', db, '--format', 'csv'], {});
  mustSucceed(run, 'tds sql');
  return run.stdout
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => line.split(','));
}

/** @param {string} query */
async function scalar(query) {
  return Number((await tdsSql(query))[0]?.[0]);
}

/** Phase 2: the real limits; ADDED rows added, then an incremental sync of the mirror phase 1 built. */
async function incrementalSync() {
  console.log(
    `\n2. incremental sync after ${n(ADDED)} new rows, real rate limits (60 row reads a minute). ` +
      `Targets: <= ${TARGET.incrementalRequests} row requests (a re-export: ${n((ROWS + ADDED) / PAGE)}); wall time <= ${TARGET.incrementalSeconds} s`,
  );
  const limited = await startEmulator(['--data', stateFile], emulators);
  const table = await generatedTable(limited);
  await addRows(limited, table, ADDED);
  const synced = await runTds(['sync', '--db', db, '--json'], { probe: 'incremental' });
  mustSucceed(synced, 'tds sync (incremental)');
  const result = onlyTable(synced);
  const log = (await requestLog(limited)).filter((entry) => entry.at >= synced.startedAt); // not the bench's own reads
  const rowReads = log.filter((entry) => entry.bucket === 'rows');
  const others = log.filter((entry) => entry.bucket !== 'rows');
  const throttled = log.filter((entry) => entry.status === 429).length;
  console.log(
    `tds sync --db mirror.duckdb: ${seconds(synced.ms)} wall (sync's own figure ${result.seconds} s); ${result.mode}, ${n(result.rowsRead)} rows read, ` +
      `${n(result.inserted)} inserted, ${n(result.updated)} updated; emulator log: ${rowReads.length} row requests, ` +
      `${others.length} other requests, ${throttled} answered 429; sync --json says ${result.requests} requests`,
  );
  const count = await mirrorCount(result.mirrorTable);
  check(
    result.mode === 'incremental' && result.inserted === ADDED && count === ROWS + ADDED,
    `${n(count)} rows in the mirror, ${n(result.inserted)} inserted`,
  );
  check(rowReads.length <= TARGET.incrementalRequests, `${rowReads.length} row requests (target <= ${TARGET.incrementalRequests})`);
  check(synced.ms <= TARGET.incrementalSeconds * 1000, `wall time ${seconds(synced.ms)} (target <= ${TARGET.incrementalSeconds} s)`);
  await limited.stop(); // saves --data (with the new rows) for phase 3
}

/** Phase 3: `tds sync --follow` idle, its polls counted in the emulator's request log; (a) after the burst, (b) once it aged. */
async function idleFollow() {
  console.log(
    `\n3. tds sync --follow --every ${EVERY_SECONDS}, idle, real rate limits, ${POLLS} polls each: (a) within the margin after the ` +
      `${n(ADDED)}-row burst (no target); (b) after the clock moved ${AGE_MS / 60_000} minutes and one row came. ` +
      `Target for (b): ${TARGET.requestsPerIdlePoll} row request per poll`,
  );
  const emu = await startEmulator(['--data', stateFile], emulators);
  const table = await generatedTable(emu);
  const follow = startFollow();
  const caughtUp = await follow.nextSummary(60_000); // round 0 always prints its summary
  const burst = await pollsAfter(emu, caughtUp.at, POLLS);
  reportPolls(`(a) idle within the margin after the ${n(ADDED)}-row burst`, burst, caughtUp.summary);
  console.log(
    `    (each poll reads again the rows created in the minute before it began, where a late webhook row can still show: ` +
      `the burst, until it is older than that)`,
  );

  await fetchJson(emu, 'POST', '/_emulator/clock', { advanceMs: AGE_MS });
  await addRows(emu, table, 1);
  const newRow = await follow.nextSummary(120_000); // the poll that found the row prints its summary
  const aged = await pollsAfter(emu, newRow.at, POLLS);
  reportPolls('(b) idle, the burst older than the margin', aged, newRow.summary, TARGET.requestsPerIdlePoll);

  const code = await follow.interrupt();
  console.log(`SIGINT: tds sync --follow exited with ${code}`);
  await emu.stop();
}

/**
 * Prints the polls of one idle stretch, and checks each against `target` when given.
 * @param {string} name
 * @param {LoggedRequest[][]} polls
 * @param {SyncSummary} before the summary of the round before them
 * @param {number} [target] row requests a poll may take
 */
function reportPolls(name, polls, before, target) {
  const rows = polls.map((poll) => poll.filter((entry) => entry.bucket === 'rows').length);
  const all = polls.map((poll) => poll.length);
  const throttled = polls.flat().filter((entry) => entry.status === 429).length;
  const round = before.tables[0];
  console.log(
    `${name}: the round before read ${n(round?.rowsRead ?? 0)} rows in ${round?.requests ?? '?'} requests; ` +
      `then ${polls.length} polls: row requests ${rows.join(', ')}; all requests ${all.join(', ')}; ${throttled} answered 429`,
  );
  if (target === undefined) return;
  const worst = Math.max(...rows);
  check(worst <= target, `${name}: ${worst} row request${worst === 1 ? '' : 's'} per poll at most (target ${target})`);
}

/**
 * The first `count` polls whose requests all arrived after `since` (a poll: requests less than half of
 * --every apart; complete once the next one began or nothing came for a second).
 * @param {Emulator} emu
 * @param {number} since
 * @param {number} count
 * @returns {Promise<LoggedRequest[][]>}
 */
async function pollsAfter(emu, since, count) {
  const deadline = Date.now() + (count + 2) * EVERY_SECONDS * 1000 + 120_000;
  for (;;) {
    const entries = (await requestLog(emu)).filter((entry) => entry.at > since && entry.bucket !== undefined);
    /** @type {LoggedRequest[][]} */
    const polls = [];
    for (const entry of entries) {
      const current = polls.at(-1);
      const last = current?.at(-1);
      if (current && last && entry.at - last.at < (EVERY_SECONDS * 1000) / 2) current.push(entry);
      else polls.push([entry]);
    }
    const lastAt = polls.at(-1)?.at(-1)?.at ?? 0;
    const complete = Date.now() - lastAt > 1_000 ? polls : polls.slice(0, -1);
    if (complete.length >= count) return complete.slice(0, count);
    if (Date.now() > deadline) throw new Error(`only ${complete.length} polls of --follow came (${count} expected)`);
    await sleep(250);
  }
}

/**
 * `tds sync --db FILE --follow --every N --json` as a child: its summaries as they come, and a SIGINT.
 */
function startFollow() {
  const child = spawn(process.execPath, [TDS_BIN, 'sync', '--db', db, '--follow', '--every', String(EVERY_SECONDS), '--json'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: tdsEnv(),
  });
  const kill = () => child.kill('SIGKILL');
  cleanups.push(kill);
  let stderr = '';
  child.stderr.on('data', (/** @type {Buffer} */ chunk) => (stderr += chunk.toString()));
  /** @type {Array<{ at: number, summary: SyncSummary }>} */
  const summaries = [];
  createInterface({ input: child.stdout }).on('line', (line) => summaries.push({ at: Date.now(), summary: JSON.parse(line) }));
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  let taken = 0;
  return {
    /** The next summary line the follow prints (a round that changed something, or round 0). */
    async nextSummary(/** @type {number} */ timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      while (summaries.length <= taken) {
        if (child.exitCode !== null) throw new Error(`tds sync --follow exited with ${child.exitCode}: ${stderr}`);
        if (Date.now() > deadline) throw new Error(`tds sync --follow printed no summary in ${seconds(timeoutMs)}: ${stderr}`);
        await sleep(100);
      }
      const next = summaries[taken++];
      if (!next) throw new Error('no summary');
      return next;
    },
    async interrupt() {
      child.kill('SIGINT');
      const code = await exited;
      cleanups.splice(cleanups.indexOf(kill), 1);
      return code;
    },
  };
}

/**
 * A JSON request to the emulator (API paths with the key); the parsed body, of the type the caller names.
 * @template T
 * @param {Emulator} emu
 * @param {'GET' | 'POST' | 'PATCH'} method
 * @param {string} path from the origin: `/v1/…` or `/_emulator/…`
 * @param {unknown} [body]
 * @returns {Promise<T>}
 */
async function fetchJson(emu, method, path, body) {
  const response = await request(`${emu.origin}${path}`, {
    method,
    headers: { authorization: `Bearer ${emu.apiKey}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.body.text();
  if (response.statusCode >= 300) throw new Error(`${method} ${path}: HTTP ${response.statusCode} ${text}`);
  return /** @type {T} */ (JSON.parse(text));
}

/**
 * The emulator's request log (key endpoints and webhook; its own /_emulator routes are not logged).
 * @param {Emulator} emu
 * @returns {Promise<LoggedRequest[]>}
 */
function requestLog(emu) {
  return fetchJson(emu, 'GET', '/_emulator/requests');
}

/**
 * @param {Emulator} emu
 * @returns {Promise<Table>}
 */
async function generatedTable(emu) {
  /** @type {TablesResponse} */
  const { tables } = await fetchJson(emu, 'GET', '/v1/tables');
  const table = tables.find((candidate) => candidate.name === 'Generated');
  if (!table) throw new Error('the emulator has no table named Generated');
  return table;
}

/**
 * Reads 50 pages, so the emulator's code is warm before the timed runs (none of them is logged as a run).
 * @param {Emulator} emu
 * @param {Table} table
 */
async function warmUp(emu, table) {
  /** @type {string | null} */
  let cursor = null;
  for (let page = 0; page < 50; page += 1) {
    /** @type {{ nextCursor: string | null }} */
    const body = await fetchJson(
      emu,
      'GET',
      `/v1/tables/${table.id}/rows?limit=${PAGE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    cursor = body.nextCursor;
    if (cursor === null) break;
  }
}

/**
 * Adds `count` rows created now (admin route; no webhook delay).
 * @param {Emulator} emu
 * @param {Table} table
 * @param {number} count
 */
async function addRows(emu, table, count) {
  const rows = Array.from({ length: count }, (_, i) => ({ cells: { Name: `New row ${i + 1}`, Amount: i, Plan: 'Pro', Active: true } }));
  /** @type {{ rows: unknown[] }} */
  const added = await fetchJson(emu, 'POST', `/_emulator/tables/${table.id}/rows`, { rows });
  if (added.rows.length !== count) throw new Error(`the emulator added ${added.rows.length} rows, not ${count}`);
}

/**
 * Rows in a mirror table, through `tds sql`.
 * @param {string} mirrorTable
 */
async function mirrorCount(mirrorTable) {
  return scalar(`SELECT count(*) AS n FROM "${mirrorTable}"`);
}

/**
 * While the full sync runs, a line every PROGRESS_MS: its row requests so far (from the emulator's log).
 * @param {Emulator} emu
 */
function startProgress(emu) {
  const started = Date.now();
  const pages = Math.ceil(ROWS / PAGE);
  const timer = setInterval(() => {
    requestLog(emu)
      .then((log) => {
        const done = log.filter((entry) => entry.bucket === 'rows' && entry.at >= started).length;
        console.log(
          `   … sync running ${seconds(Date.now() - started)}: ${n(done)} of ${n(pages)} pages requested (${((done / pages) * 100).toFixed(0)}%)`,
        );
      })
      .catch(() => undefined);
  }, PROGRESS_MS);
  return { stop: () => clearInterval(timer) };
}

/** The environment of a tds child: the config folder of this bench; TDS_RATE_SCALE only when given. */
function tdsEnv(/** @type {Record<string, string>} */ extra = {}) {
  /** @type {NodeJS.ProcessEnv} */
  const env = { ...process.env, TDS_CONFIG_DIR: dir, NO_COLOR: '1', ...extra };
  if (!('TDS_RATE_SCALE' in extra)) delete env.TDS_RATE_SCALE;
  const emu = emulators.at(-1);
  if (emu) Object.assign(env, { TDS_BASE_URL: emu.baseUrl, TDS_API_KEY: emu.apiKey });
  return env;
}

/**
 * Runs `tds ARGS` against the latest emulator, sampling its peak RSS (VmHWM) until it exits.
 * @param {string[]} args
 * @param {{ env?: Record<string, string>, probe?: string }} options probe: name of the memory-probe report
 * @returns {Promise<TdsRun>}
 */
function runTds(args, { env = {}, probe }) {
  const probeFile = probe ? join(dir, `${probe}.memory.json`) : undefined;
  const startedAt = Date.now();
  const start = performance.now();
  const child = spawn(process.execPath, [...(probeFile ? ['--import', MEMORY_PROBE] : []), TDS_BIN, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...tdsEnv(env), ...(probeFile ? { BENCH_MEMORY_PROBE: probeFile } : {}) },
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error('could not start tds');
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (/** @type {Buffer} */ chunk) => (stdout += chunk.toString()));
  child.stderr.on('data', (/** @type {Buffer} */ chunk) => (stderr += chunk.toString()));
  let peakKb = 0;
  const sample = () => {
    try {
      const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (match) peakKb = Math.max(peakKb, Number(match[1]));
    } catch {
      // the child has exited
    }
  };
  const timer = setInterval(sample, 50);
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
 * @param {TdsRun} run
 * @param {string} what
 */
function mustSucceed(run, what) {
  if (run.code !== 0) throw new Error(`${what} exited with ${run.code ?? run.signal}: ${run.stderr}`);
}

/**
 * The one table of a `tds sync --json` summary.
 * @param {TdsRun} run
 */
function onlyTable(run) {
  /** @type {SyncSummary} */
  const summary = JSON.parse(run.stdout);
  const table = summary.tables[0];
  if (!table || summary.tables.length !== 1) throw new Error(`expected one table in the sync summary: ${run.stdout}`);
  return table;
}
