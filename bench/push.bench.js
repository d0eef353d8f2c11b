#!/usr/bin/env node
// @ts-check
// `tds push` throughput on a 1,000,000-record CSV (PUSH_BENCH_RECORDS to change it):
//   1. parse-and-batch speed alone: `tds push --dry-run`           (target >= 200,000 records/s)
//   2. a real push to the emulator at its real webhook limit, 100 requests/s per IP, so the ceiling is
//      100 x 500 = 50,000 records/s                                (target >= 90% of it)
//      (by default a file is sent as it is read; --validate-first checks it in full before the first request)
//   3. peak RSS of the tds process with --validate-first           (target <= 200 MB)
//   4. the push of 2. to a service 200 and 400 ms away (`tds emulator --latency`; PUSH_BENCH_LATENCIES to change
//      them), in the same run: >= 90% of the ceiling and <= 1.1x the loopback push at 200 ms, >= 85% at 400 ms,
//      peak RSS <= 250 MB
//   5. a naive sequential sender of the same records (undici, one request at a time, retry-after on 429)
// Peak RSS and CPU time of each tds child are its own (getrusage at exit), written by memory-probe.mjs,
// which the bench loads into the child with `node --import`: tds itself reports neither.
// Each push goes to a fresh emulator child process whose intake delay is an hour: making 1,000,000
// webhook rows visible is the emulator's own work (and slow), not the client's, so it is kept out.
// A push that does not exit 0 with every record sent, or a missed target, makes the bench exit 1.
// Run: npm run build && node bench/push.bench.js
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createReadStream, createWriteStream, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { finished } from 'node:stream/promises';
import { parse } from 'csv-parse';
import { Pool, request } from 'undici';
import { DEFAULT_RETRY_AFTER_SECONDS, WEBHOOK_MAX_BODY_BYTES, WEBHOOK_MAX_OBJECTS } from '#dist/service/index.js';
import { MEMORY_PROBE, TDS_BIN, n, startEmulator } from './support.mjs';

/** @typedef {import('#dist/service/index.js').TablesResponse} TablesResponse */
/** @typedef {import('./memory-probe.mjs').ProbeReport} ProbeReport */
/**
 * The parts of `tds push --json`'s summary this bench reads.
 * @typedef {{
 *   records: { read: number, sent: number },
 *   batches: { total: number },
 *   bytes: number,
 *   seconds: number,
 *   checkSeconds?: number,
 *   sendSeconds?: number,
 *   recordsPerSecond: number,
 *   network?: { roundTripMs: number, inFlight: number },
 * }} PushSummary
 */
/**
 * One tds child: how it ended, what it printed, its wall time, and its own peak RSS and CPU time.
 * @typedef {{ code: number | null, stdout: string, stderr: string, wallMs: number, maxRssBytes: number, cpuSeconds: number }} TdsRun
 */
/** @typedef {import('./support.mjs').Emulator} Emulator */
/** One entry of the emulator's request log (GET /_emulator/requests), the fields this bench reads. @typedef {{ method: string, status: number, bucket?: string }} LoggedRequest */

const RECORDS = Number(process.env.PUSH_BENCH_RECORDS ?? 1_000_000);
/** The round trips (ms) the push is measured at besides loopback, through `tds emulator --latency`. */
const LATENCIES = (process.env.PUSH_BENCH_LATENCIES ?? '200,400').split(',').filter(Boolean).map(Number);
const CEILING = 100 * WEBHOOK_MAX_OBJECTS;

let runs = 0;
/** @type {Emulator[]} every emulator started, stopped at the end whatever happened */
const emulators = [];
let failed = false;
/** `ok`, or `MISSED` (and the bench will exit 1). */
const verdict = (/** @type {boolean} */ ok) => {
  if (!ok) failed = true;
  return ok ? 'ok' : 'MISSED';
};

const dir = await mkdtemp(join(tmpdir(), 'tds-push-bench-'));
const csv = join(dir, 'people.csv');
try {
  // a million records go into one webhook and table: the budget and ceiling of a production service are not this emulator's
  for (const setting of ['webhook-budget', 'table-capacity']) {
    const set = await runTds(['config', 'set', setting, 'off']);
    if (set.code !== 0) throw new Error(`tds config set ${setting} off exited ${set.code}: ${set.stderr}`);
  }
  await generateCsv(csv, RECORDS);
  step(`generated ${n(RECORDS)} records`);

  const dry = await runTds(['push', '--dry-run', '--json', csv]);
  const plan = summaryOf(dry, 'push --dry-run');
  const dryRate = plan.records.read / (dry.wallMs / 1000);
  step('dry run done');

  const emu1 = await startPushEmulator();
  const push = await runTds(['push', await inboxUrl(emu1), csv, '--validate-first', '--json', '--journal', join(dir, 'push.journal')]);
  const pushed = summaryOf(push, 'push --validate-first');
  const log1 = await emulatorLog(emu1);
  await emu1.stop();
  step('push --validate-first done');

  const emuStream = await startPushEmulator();
  const streamed = await runTds(['push', await inboxUrl(emuStream), csv, '--json', '--journal', join(dir, 'stream.journal')]);
  const streamedSummary = summaryOf(streamed, 'push');
  const logStream = await emulatorLog(emuStream);
  await emuStream.stop();
  step('push done');

  // the same push to a far service (`tds emulator --latency MS`), in the same run
  const far = [];
  for (const ms of LATENCIES) {
    const emu = await startPushEmulator(['--latency', String(ms)]);
    const run = await runTds(['push', await inboxUrl(emu), csv, '--json', '--journal', join(dir, `far-${ms}.journal`)]);
    const summary = summaryOf(run, `push at ${ms} ms`);
    far.push({ ms, run, summary, log: await emulatorLog(emu) });
    await emu.stop();
    step(`push at ${ms} ms round trip done`);
  }

  const emu2 = await startPushEmulator();
  const naive = await naiveSender(await inboxUrl(emu2), csv);
  const log2 = await emulatorLog(emu2);
  await emu2.stop();

  const pushRate = pushed.records.sent / (push.wallMs / 1000);
  const sendSeconds = pushed.sendSeconds ?? NaN;
  const sendRate = pushed.records.sent / sendSeconds;
  const streamRate = streamedSummary.records.sent / (streamed.wallMs / 1000);
  const lines = [
    `records                          ${n(RECORDS)} (${(plan.bytes / 1e6).toFixed(1)} MB of request bodies in ${n(plan.batches.total)} batches)`,
    `dry run (parse and batch)        ${(dry.wallMs / 1000).toFixed(2)} s wall: ${n(dryRate)} records/s  [target >= 200,000] ${verdict(dryRate >= 200_000)}`,
    `  inside the process             ${plan.seconds.toFixed(2)} s: ${n(plan.recordsPerSecond)} records/s (without Node's start-up)`,
    `  CPU                            ${dry.cpuSeconds.toFixed(2)} s: ${n(RECORDS / dry.cpuSeconds)} records per CPU-second`,
    `  peak RSS                       ${mb(dry.maxRssBytes)} MB`,
    `push --validate-first            ${(push.wallMs / 1000).toFixed(2)} s wall: ${n(pushRate)} records/s = ${pct(pushRate)} of ${n(CEILING)} (the check costs the difference)`,
    `  of which checking the file     ${(pushed.checkSeconds ?? NaN).toFixed(2)} s (a file is validated in full before the first request)`,
    `  sending                        ${sendSeconds.toFixed(2)} s: ${n(sendRate)} records/s = ${pct(sendRate)} of the ceiling ${verdict(sendRate >= 0.9 * CEILING)}`,
    `  requests                       ${n(log1.posts)} POST (${n(log1.limited)} answered 429), exit ${push.code}, sent ${n(pushed.records.sent)} ${verdict(complete(push, pushed))}`,
    `  CPU of tds                     ${push.cpuSeconds.toFixed(2)} s (both passes)`,
    `  peak RSS                       ${mb(push.maxRssBytes)} MB  [target <= 200 MB] ${verdict(push.maxRssBytes <= 200e6)}`,
    `push at the real webhook limit   ${(streamed.wallMs / 1000).toFixed(2)} s wall: ${n(streamRate)} records/s = ${pct(streamRate)} of ${n(CEILING)}  [target >= 90%] ${verdict(streamRate >= 0.9 * CEILING)}`,
    `  requests                       ${n(logStream.posts)} POST (${n(logStream.limited)} answered 429), exit ${streamed.code}, sent ${n(streamedSummary.records.sent)} ${verdict(complete(streamed, streamedSummary))}`,
    `  CPU of tds                     ${streamed.cpuSeconds.toFixed(2)} s`,
    `  peak RSS                       ${mb(streamed.maxRssBytes)} MB`,
    ...far.flatMap(({ ms, run, summary, log }) => {
      const rate = summary.records.sent / (run.wallMs / 1000);
      const target = ms >= 400 ? 0.85 : 0.9;
      const ratio = run.wallMs / streamed.wallMs;
      const network = summary.network ? `round trip ${summary.network.roundTripMs} ms, ${summary.network.inFlight} in flight` : '';
      return [
        `push at ${ms} ms round trip      ${(run.wallMs / 1000).toFixed(2)} s wall: ${n(rate)} records/s = ${pct(rate)} of ${n(CEILING)}  [target >= ${target * 100}%] ${verdict(rate >= target * CEILING)}`,
        `  against loopback               ${ratio.toFixed(2)}x its time${ms <= 200 ? `  [target <= 1.1x] ${verdict(ratio <= 1.1)}` : ''}; ${network}`,
        `  requests                       ${n(log.posts)} POST (${n(log.limited)} answered 429), exit ${run.code}, sent ${n(summary.records.sent)} ${verdict(complete(run, summary))}`,
        `  peak RSS                       ${mb(run.maxRssBytes)} MB  [target <= 250 MB] ${verdict(run.maxRssBytes <= 250e6)}`,
      ];
    }),
    `naive sequential sender          ${(naive.ms / 1000).toFixed(2)} s: ${n(naive.records / (naive.ms / 1000))} records/s = ${pct(naive.records / (naive.ms / 1000))} of the ceiling`,
    `  requests                       ${n(log2.posts)} POST (${n(log2.limited)} answered 429), ${n(naive.batches)} batches, ${(naive.bytes / 1e6).toFixed(1)} MB`,
  ];
  console.log(lines.join('\n'));
} finally {
  await Promise.all(emulators.map((emulator) => emulator.stop()));
  await rm(dir, { recursive: true, force: true });
}
if (failed) console.log('push bench: a target was missed');
process.exitCode = failed ? 1 : 0;

/** @param {string} text */
function step(text) {
  process.stderr.write(`  … ${text}\n`);
}

/**
 * The --json summary a tds run printed on stdout.
 * @param {TdsRun} run
 * @param {string} what
 * @returns {PushSummary}
 */
function summaryOf(run, what) {
  try {
    return /** @type {PushSummary} */ (JSON.parse(run.stdout));
  } catch {
    throw new Error(`tds ${what} exited ${run.code} without a JSON summary: ${run.stderr}`);
  }
}

/**
 * A push that exited 0 having sent every record: only then do its figures measure a push.
 * @param {TdsRun} run
 * @param {PushSummary} summary
 */
function complete(run, summary) {
  const ok = run.code === 0 && summary.records.sent === RECORDS;
  // what tds said is the only clue to an exit 7 (an uncertain batch) or 5
  if (!ok) process.stderr.write(`  tds exited ${run.code}; its last messages:\n${run.stderr.trim().split('\n').slice(-6).join('\n')}\n`);
  return ok;
}

/**
 * @param {string} path
 * @param {number} count
 */
async function generateCsv(path, count) {
  const out = createWriteStream(path);
  out.write('name,email,amount,active,city,notes\n');
  let chunk = '';
  for (let i = 1; i <= count; i += 1) {
    chunk += `Person ${i},p${i}@example.com,${(i * 37) % 100000},${i % 2 === 0},"City, ${i % 100}",${i % 7 === 0 ? '' : `note ${i}`}\n`;
    if (chunk.length > 1 << 20) {
      if (!out.write(chunk)) await once(out, 'drain');
      chunk = '';
    }
  }
  out.end(chunk);
  await finished(out);
}

/**
 * Forks bin/tds.js with memory-probe.mjs loaded; wall time, and the child's own peak RSS and CPU time.
 * @param {string[]} args
 * @returns {Promise<TdsRun>}
 */
function runTds(args) {
  runs += 1;
  const probe = join(dir, `tds-${runs}.probe.json`);
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, ['--import', MEMORY_PROBE, TDS_BIN, ...args], {
      // the run's own config and data folders: no profile or ledger of the developer's
      env: {
        ...process.env,
        TDS_CONFIG_DIR: join(dir, 'config'),
        TDS_DATA_DIR: join(dir, 'data'),
        NO_COLOR: '1',
        BENCH_MEMORY_PROBE: probe,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (/** @type {Buffer} */ chunk) => (stdout += chunk.toString()));
    child.stderr.on('data', (/** @type {Buffer} */ chunk) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const wallMs = performance.now() - started;
      /** @type {ProbeReport} */
      let usage;
      try {
        usage = JSON.parse(readFileSync(probe, 'utf8'));
      } catch (error) {
        return reject(new Error(`tds ${args[0]} exited ${code} and left no memory probe report (${String(error)}): ${stderr}`));
      }
      resolve({ code, stdout, stderr, wallMs, maxRssBytes: usage.maxRssBytes, cpuSeconds: usage.cpuSeconds });
    });
  });
}

/**
 * `tds emulator` as a child at the real rate limits; pushed rows stay in its intake (an hour's delay).
 * @param {string[]} [extra] more arguments (--latency MS)
 * @returns {Promise<Emulator>}
 */
function startPushEmulator(extra = []) {
  return startEmulator(['--seed', 'demo', '--ingest-delay', '3600000', ...extra], emulators);
}

/**
 * The webhook URL of the demo seed's Inbox table.
 * @param {Emulator} emu
 */
async function inboxUrl(emu) {
  const response = await request(`${emu.baseUrl}/tables`, { headers: { authorization: `Bearer ${emu.apiKey}` } });
  const { tables } = /** @type {TablesResponse} */ (await response.body.json());
  const inbox = tables.find((table) => table.name === 'Inbox');
  const url = inbox && emu.webhooks[inbox.id];
  if (!url) throw new Error('the emulator has no webhook for a table named Inbox');
  return url;
}

/**
 * How many webhook POSTs the emulator logged, and how many of them it answered 429.
 * @param {Emulator} emu
 */
async function emulatorLog(emu) {
  const response = await request(`${new URL(emu.baseUrl).origin}/_emulator/requests`);
  const entries = /** @type {LoggedRequest[]} */ (await response.body.json());
  const log = entries.filter((entry) => entry.bucket === 'webhook' && entry.method === 'POST');
  return { posts: log.length, limited: log.filter((entry) => entry.status === 429).length };
}

/**
 * The CSV's records as tds reads them (the header names the keys, an empty field leaves its key out,
 * values stay strings) in bodies of at most WEBHOOK_MAX_OBJECTS objects and WEBHOOK_MAX_BODY_BYTES bytes.
 * @param {string} path
 * @returns {AsyncGenerator<{ body: string, count: number }>}
 */
async function* naiveBatches(path) {
  /** @type {string[]} */
  let items = [];
  let bytes = 2; // []
  const flush = () => {
    const batch = { body: `[${items.join(',')}]`, count: items.length };
    items = [];
    bytes = 2;
    return batch;
  };
  /** @type {AsyncIterable<Record<string, string>>} */
  const records = createReadStream(path).pipe(parse({ columns: true, bom: true }));
  for await (const record of records) {
    const object = Object.fromEntries(Object.entries(record).filter(([, value]) => value !== ''));
    const json = JSON.stringify(object);
    const jsonBytes = Buffer.byteLength(json);
    // `,json` after the first item
    if (items.length === WEBHOOK_MAX_OBJECTS || (items.length > 0 && bytes + 1 + jsonBytes > WEBHOOK_MAX_BODY_BYTES)) yield flush();
    bytes += (items.length > 0 ? 1 : 0) + jsonBytes;
    items.push(json);
  }
  if (items.length > 0) yield flush();
}

/**
 * The same records, one request at a time, no limiter: on 429 it waits retry-after (10 s without) and retries.
 * @param {string} url
 * @param {string} path
 */
async function naiveSender(url, path) {
  const target = new URL(url);
  const pool = new Pool(target.origin, { connections: 1 });
  const started = performance.now();
  let records = 0;
  let batches = 0;
  let bytes = 0;
  for await (const batch of naiveBatches(path)) {
    batches += 1;
    bytes += Buffer.byteLength(batch.body);
    for (;;) {
      const response = await pool.request({
        method: 'POST',
        path: target.pathname,
        headers: { 'content-type': 'application/json' },
        body: batch.body,
      });
      await response.body.text();
      if (response.statusCode === 429) {
        const retryAfter = Number(response.headers['retry-after'] ?? DEFAULT_RETRY_AFTER_SECONDS);
        await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000));
        continue;
      }
      if (response.statusCode >= 300) throw new Error(`naive sender: HTTP ${response.statusCode}`);
      records += batch.count;
      break;
    }
  }
  await pool.close();
  return { records, batches, bytes, ms: performance.now() - started };
}

/** @param {number} bytes */
function mb(bytes) {
  return (bytes / 1e6).toFixed(0);
}

/** @param {number} rate */
function pct(rate) {
  return `${((100 * rate) / CEILING).toFixed(1)}%`;
}
