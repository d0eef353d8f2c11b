#!/usr/bin/env node
// @ts-check
// `tds push --key` on a real network: each case on loopback and 200 ms away (`tds emulator --latency`;
// PUSHKEY_BENCH_LATENCIES to change them), in the same run, at the service's real limits:
//   1. push by key: PUSHKEY_BENCH_RECORDS (200,000) new records by an e-mail key into a table fed by
//      its webhook. Sending against the webhook's ceiling, 100 requests/s x 500 = 50,000 records/s
//      (target >= 90% at 200 ms); the whole run (the key lookups, sending, the wait until the rows of its
//      last requests show) against the least the limits allow: sending at the ceiling, then the
//      intake's quiet delay (5 s) and a lookup (target: 200 ms within 1.1x loopback). Beside it, the same
//      records pushed without a key just after: how fast this machine lets any push send at that moment.
//   2. --wait settled: PUSHKEY_BENCH_SETTLED (2,000) records by key with `--wait settled -o FILE`
//      into a table whose action column runs on each row that arrives (queued, running, final: two
//      steps of --action-delay, 3 s). The time from the last request sent to every row settled and
//      written, against the least: the intake's 5 s, the two steps, and one poll interval; the row
//      requests the wait's polls took. Every row must settle and be written.
// Each push goes to a fresh emulator child. A push that does not exit 0 with every record sent, or a
// missed target, makes the bench exit 1. The machine's load is printed with each case: figures taken
// under load are indicative.
// Run: npm run build && node bench/push-key.bench.js (or npm run bench -- push)
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WEBHOOK_MAX_OBJECTS } from '#dist/service/index.js';
import { fetchJson, requestLog } from './emulator-api.mjs';
import { load, n, startEmulator, verdict } from './support.mjs';
import { mustSucceed, runTds, tdsEnv } from './tds-child.mjs';

/** @typedef {import('./support.mjs').Emulator} Emulator */
/** @typedef {import('./tds-child.mjs').TdsRun} TdsRun */
/**
 * The parts of `tds push --json`'s summary this bench reads.
 * @typedef {{
 *   records: { read: number, sent: number },
 *   seconds: number,
 *   sendSeconds?: number,
 *   network?: { roundTripMs: number, inFlight: number },
 *   key?: { lookupRequests: number, lookupRequestsByUse: Record<string, number> },
 *   wait?: { mode: string, seconds: number, complete: boolean, settled: number, requests: number, output: { rows: number } | null },
 * }} PushSummary
 */

const RECORDS = Number(process.env.PUSHKEY_BENCH_RECORDS ?? 200_000);
const SETTLED_RECORDS = Number(process.env.PUSHKEY_BENCH_SETTLED ?? 2_000);
const LATENCIES = (process.env.PUSHKEY_BENCH_LATENCIES ?? '0,200').split(',').filter(Boolean).map(Number);
const CEILING = 100 * WEBHOOK_MAX_OBJECTS;
/** The emulator's defaults: rows show 5 s after the last request to the webhook; an action cell steps every 3 s. */
const INGEST_DELAY_MS = 5_000;
const ACTION_DELAY_MS = 3_000;
const pad = (/** @type {number} */ i) => String(i).padStart(7, '0');
/** The table of case 1: the key column and a name, both filled by the webhook. */
const FIELDS = [
  { label: 'Mail', type: 'email', mapKey: 'mail' },
  { label: 'Name', type: 'text', mapKey: 'name' },
];

const { check, missed } = verdict();
/** @type {Emulator[]} every emulator started, stopped at the end whatever happened */
const emulators = [];
const dir = await mkdtemp(join(tmpdir(), 'tds-key-bench-'));
try {
  // 200,000 records into one webhook and table: the budget and ceiling of a production service are not this emulator's
  for (const setting of ['webhook-budget', 'table-capacity']) {
    mustSucceed(await runTds(['config', 'set', setting, 'off'], { env: tdsEnv({ dir }), dir }), `tds config set ${setting} off`);
  }
  const keyed = join(dir, 'keyed.ndjson');
  await writeRecords(keyed, RECORDS);
  const settled = join(dir, 'settled.ndjson');
  await writeRecords(settled, SETTLED_RECORDS);

  console.log(`1. push by key: ${n(RECORDS)} records by an e-mail key; the ceiling ${n(CEILING)} records/s`);
  /** @type {Map<number, TdsRun>} */
  const pushes = new Map();
  for (const ms of LATENCIES) pushes.set(ms, await pushByKey(keyed, ms));
  const loopback = pushes.get(0);
  for (const [ms, run] of pushes) {
    if (ms === 0 || !loopback) continue;
    const ratio = run.ms / loopback.ms;
    check(ratio <= 1.1, `at ${ms} ms the run takes ${ratio.toFixed(2)}x its time on loopback (target <= 1.1x)`);
  }

  console.log(`\n2. --wait settled: ${n(SETTLED_RECORDS)} records by key into a table with an action column`);
  for (const ms of LATENCIES) await waitSettled(settled, ms);
} finally {
  await Promise.all(emulators.map((emulator) => emulator.stop()));
  await rm(dir, { recursive: true, force: true });
}
if (missed()) console.log('push --key bench: a target was missed');
process.exitCode = missed() ? 1 : 0;

/**
 * Case 1 at one round trip: the push by key, its sending against the ceiling and its whole run against the least.
 * @param {string} input
 * @param {number} ms
 */
async function pushByKey(input, ms) {
  const emu = await startKeyEmulator(ms);
  const table = await createTable(emu, 'Keyed', FIELDS);
  const uptime = load();
  const run = await runTds(['push', table.webhookUrl, input, '--key', 'mail', '--table', table.id, '--json'], {
    env: tdsEnv({ dir, emulator: emu }),
    dir,
  });
  mustSucceed(run, `tds push --key at ${ms} ms`);
  const summary = summaryOf(run);
  const log = await requestLog(emu);
  const posts = log.filter((entry) => entry.bucket === 'webhook');
  const reads = log.filter((entry) => entry.bucket === 'rows');
  // the same records pushed without a key just after, on the same emulator: what this machine's CPU
  // lets any push send at this moment, to tell the key's cost from the machine's load
  const plainTable = await createTable(emu, 'Plain', FIELDS);
  const plain = await runTds(['push', plainTable.webhookUrl, input, '--json', '--journal', join(dir, `plain-${ms}.journal`)], {
    env: tdsEnv({ dir, emulator: emu }),
    dir,
  });
  mustSucceed(plain, `tds push (no key) at ${ms} ms`);
  await stop(emu);
  const plainSummary = summaryOf(plain);
  const plainRate = plainSummary.records.sent / (plainSummary.sendSeconds ?? Number.NaN);
  const sendSeconds = summary.sendSeconds ?? Number.NaN;
  const rate = summary.records.sent / sendSeconds;
  const least = RECORDS / CEILING + INGEST_DELAY_MS / 1000;
  const network = summary.network ? `; round trip ${summary.network.roundTripMs} ms, ${summary.network.inFlight} in flight` : '';
  console.log(`at ${ms} ms round trip (load ${uptime}): ${(run.ms / 1000).toFixed(1)} s wall, exit ${run.code}${network}`);
  check(rate >= 0.9 * CEILING, `sending: ${sendSeconds.toFixed(2)} s = ${n(rate)} records/s = ${pct(rate)} of the ceiling (target >= 90%)`);
  check(
    summary.records.sent === RECORDS,
    `sent ${n(summary.records.sent)} of ${n(RECORDS)} in ${n(posts.length)} webhook requests (${n(posts.filter((entry) => entry.status === 429).length)} answered 429)`,
  );
  console.log(
    `  the whole run                  ${(run.ms / 1000).toFixed(1)} s against the least the limits allow, ${least.toFixed(1)} s ` +
      `(sending at the ceiling, then the intake's ${INGEST_DELAY_MS / 1000} s): ${((100 * least * 1000) / run.ms).toFixed(0)}% of what they allow; ` +
      `${n(summary.key?.lookupRequests ?? 0)} key lookups (${n(reads.length)} row requests, ${n(reads.filter((entry) => entry.status === 429).length)} answered 429)`,
  );
  console.log(
    `  the same push without a key    sending ${n(plainRate)} records/s = ${pct(plainRate)} of the ceiling, just after on the same ` +
      `emulator: the push by key sends at ${(rate / plainRate).toFixed(2)}x its rate`,
  );
  return run;
}

/**
 * Case 2 at one round trip: --wait settled -o FILE; the time after the last request, against the least.
 * @param {string} input
 * @param {number} ms
 */
async function waitSettled(input, ms) {
  const emu = await startKeyEmulator(ms);
  const table = await createTable(emu, 'Enriched', [
    { label: 'Mail', type: 'email', mapKey: 'mail' },
    { label: 'Name', type: 'text', mapKey: 'name' },
    { label: 'Domain', type: 'action', action: { from: 'Mail', derive: 'domain' } },
  ]);
  const output = join(dir, `settled-${ms}.csv`);
  const uptime = load();
  const run = await runTds(
    ['push', table.webhookUrl, input, '--key', 'mail', '--table', table.id, '--wait', 'settled', '-o', output, '--json'],
    { env: tdsEnv({ dir, emulator: emu }), dir },
  );
  mustSucceed(run, `tds push --wait settled at ${ms} ms`);
  const summary = summaryOf(run);
  const log = await requestLog(emu);
  await stop(emu);
  const wait = summary.wait;
  if (!wait || wait.mode !== 'settled') throw new Error(`tds push --wait settled printed no settled wait: ${run.stdout}`);
  const written = readFileSync(output, 'utf8').trimEnd().split('\n').length - 1;
  await rm(output, { force: true });
  const lastPost = Math.max(...log.filter((entry) => entry.bucket === 'webhook' && entry.status < 300).map((entry) => entry.at));
  const afterSending = (run.endedAt - lastPost) / 1000;
  const least = (INGEST_DELAY_MS + 2 * ACTION_DELAY_MS) / 1000;
  const reads = log.filter((entry) => entry.bucket === 'rows');
  console.log(`at ${ms} ms round trip (load ${uptime}): ${(run.ms / 1000).toFixed(1)} s wall, exit ${run.code}`);
  check(
    wait.complete && wait.settled === SETTLED_RECORDS && written === SETTLED_RECORDS,
    `${n(wait.settled)} of ${n(SETTLED_RECORDS)} rows settled, ${n(written)} written`,
  );
  console.log(
    `  from the last request to the end ${afterSending.toFixed(1)} s against the least, ${least.toFixed(1)} s (the intake's ` +
      `${INGEST_DELAY_MS / 1000} s, two action steps of ${ACTION_DELAY_MS / 1000} s) plus a poll; the settled wait itself ` +
      `${wait.seconds.toFixed(1)} s, ${n(wait.requests)} row requests (all lookups: ${n(reads.length)}, ${n(reads.filter((entry) => entry.status === 429).length)} answered 429)`,
  );
}

/**
 * `tds emulator` at the real limits, the webhook's rows showing after the default intake delay, `ms` away.
 * @param {number} ms
 */
function startKeyEmulator(ms) {
  return startEmulator(['--seed', 'demo', '--seeded-actions', 'pending', ...(ms > 0 ? ['--latency', String(ms)] : [])], emulators);
}

/** @param {Emulator} emu */
async function stop(emu) {
  await emu.stop();
  emulators.splice(emulators.indexOf(emu), 1);
}

/**
 * A table fed by its webhook (admin route).
 * @param {Emulator} emu
 * @param {string} name
 * @param {Array<Record<string, unknown>>} fields
 */
async function createTable(emu, name, fields) {
  /** @type {{ table: { id: string, name: string }, webhookUrl: string }} */
  const reply = await fetchJson(emu, 'POST', '/_emulator/tables', { workspace: 'Marketing', name, webhook: true, fields });
  return { id: reply.table.id, name: reply.table.name, webhookUrl: reply.webhookUrl };
}

/**
 * `count` records with distinct e-mail keys, as NDJSON.
 * @param {string} path
 * @param {number} count
 */
async function writeRecords(path, count) {
  const lines = Array.from({ length: count }, (_, i) => `{"mail":"person${pad(i)}@example.com","name":"Person ${i}"}\n`);
  await writeFile(path, lines.join(''));
}

/**
 * @param {TdsRun} run
 * @returns {PushSummary}
 */
function summaryOf(run) {
  return /** @type {PushSummary} */ (JSON.parse(run.stdout));
}

/** @param {number} rate */
function pct(rate) {
  return `${((100 * rate) / CEILING).toFixed(1)}%`;
}
