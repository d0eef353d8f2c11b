#!/usr/bin/env node
// @ts-check
// `tds push --key … --skip-existing` of 100,000 records of which 50,000 are in the table already
// (SKIP_BENCH_RECORDS to change the number), for a text key (`in` lists) and an email key (`=` rules):
// the row requests tds makes against the ideal for the column type, which is the filter queries the
// keys pack into at the service's limits plus one page per 100 matching rows (existing / 100). The
// table also holds 150,000 other rows, so that reading it whole (2,000 pages) is not the cheapest plan.
// The emulator and the client run with their rate windows 20 times shorter (SKIP_BENCH_SCALE; 1 = the
// real row-read limit of 60 requests a minute): the requests are the same at any scale, and the time
// at the real limit is quoted from them. Target: within 2% of the ideal (the end-of-run check that the
// keys show in the table costs a query more). Every record must end up in the table exactly once.
// Both cases run on loopback and 200 ms away (SKIP_BENCH_LATENCIES, `tds emulator --latency`), in the same run;
// the time is reported beside the least the (scaled) limit allows for the same reads.
// Run: npm run build && node bench/push-skip-existing.bench.js (or npm run bench -- push)
import { spawn } from 'node:child_process';
import { writeFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { request } from 'undici';
import { FILTER_MAX_ENTRIES_TOTAL, FILTER_VALUE_MAX_CHARS, PAGE_LIMIT_MAX, RATE_LIMITS } from '#dist/service/index.js';
import { TDS_BIN, startEmulator } from './support.mjs';

/** @typedef {import('./support.mjs').Emulator} Emulator */
/** @typedef {{ method: string, bucket?: string, status: number }} LoggedRequest */
/** @typedef {{ records: { sent: number }, key: { existing: number, lookupRequests: number, lookup: string | null } }} KeySummary */

const RECORDS = Number(process.env.SKIP_BENCH_RECORDS ?? 100_000);
const OTHER_ROWS = Math.round(RECORDS * 1.5);
const SCALE = Number(process.env.SKIP_BENCH_SCALE ?? 20);
/** The round trips (ms) the pushes run at, through `tds emulator --latency`. */
const LATENCIES = (process.env.SKIP_BENCH_LATENCIES ?? '0,200').split(',').filter(Boolean).map(Number);
const ROW_READS_PER_MINUTE = RATE_LIMITS.rows.requests * (60_000 / RATE_LIMITS.rows.perMs);
const n = (/** @type {number} */ value) => Math.round(value).toLocaleString('en-US');
const pad = (/** @type {number} */ i) => String(i).padStart(6, '0');

/** The nested groups a query keeps beside its rules: 97 rules a query (3 groups of 25 inside 25 + 72). */
const RULES_PER_QUERY = FILTER_MAX_ENTRIES_TOTAL - 3;

let failed = false;
const verdict = (/** @type {boolean} */ ok) => {
  if (!ok) failed = true;
  return ok ? 'ok' : 'MISSED';
};

const cases = [
  { name: 'text key (`in` lists)', column: 'Code', type: 'text', key: 'code', value: (/** @type {number} */ i) => `code-${pad(i)}` },
  {
    name: 'email key (`=` rules)',
    column: 'Mail',
    type: 'email',
    key: 'mail',
    value: (/** @type {number} */ i) => `person${pad(i)}@example.com`,
  },
];

const dir = await mkdtemp(join(tmpdir(), 'tds-skip-bench-'));
/** @type {Emulator | undefined} */
let emu;
try {
  for (const latencyMs of LATENCIES) {
    emu = await startScaledEmulator(latencyMs);
    await pushCases(emu, latencyMs);
    await emu.stop();
    emu = undefined;
  }
} finally {
  await emu?.stop();
  await rm(dir, { recursive: true, force: true });
}
if (failed) console.log('push --skip-existing bench: a target was missed');
process.exitCode = failed ? 1 : 0;

/**
 * Both cases against one emulator `latencyMs` away.
 * @param {Emulator} emu
 * @param {number} latencyMs
 */
async function pushCases(emu, latencyMs) {
  for (const [index, bench] of cases.entries()) {
    const table = await createTable(emu, `Keys ${index + 1}`, bench);
    const existing = [];
    for (let i = 1; i <= RECORDS; i += 2) existing.push({ [bench.column]: bench.value(i) });
    const others = Array.from({ length: OTHER_ROWS }, (_, i) => ({ [bench.column]: `other-${i}` }));
    await addRows(emu, table.id, [...others, ...existing]);
    const input = join(dir, `${bench.key}.ndjson`);
    const values = Array.from({ length: RECORDS }, (_, i) => bench.value(i + 1));
    await writeFile(input, values.map((value) => `${JSON.stringify({ [bench.key]: value })}\n`).join(''));
    const before = await rowRequests(emu);
    const started = performance.now();
    const run = await runTds(emu, [
      'push',
      table.webhookUrl,
      input,
      '--key',
      bench.key,
      '--table',
      table.name,
      '--skip-existing',
      '--json',
    ]);
    const seconds = (performance.now() - started) / 1000;
    if (run.code !== 0) throw new Error(`tds push exited ${run.code}: ${run.stderr}`);
    const summary = /** @type {KeySummary} */ (JSON.parse(run.stdout));
    const used = (await rowRequests(emu)) - before;
    const present = new Set(existing.map((row) => row[bench.column]));
    const ideal = idealRequests(bench.type, values, (key) => present.has(key));
    const within = used <= ideal * 1.02 + 1;
    // the least time the scaled limit allows for these reads: a burst, then a window per further burst
    const limitSeconds = Math.floor((used - 1) / RATE_LIMITS.rows.requests) * (RATE_LIMITS.rows.perMs / SCALE / 1000);
    console.log(
      [
        `${bench.name} at ${latencyMs} ms round trip: ${n(RECORDS)} records, ${n(existing.length)} in the table of ${n(existing.length + OTHER_ROWS)} rows`,
        `  plan                           ${summary.key.lookup}`,
        `  row requests                   ${n(used)} (ideal ${n(ideal)}, the keys packed at the service's limits with their matches' pages; a full read would be ${n(Math.ceil((existing.length + OTHER_ROWS) / PAGE_LIMIT_MAX))})  [target within 2%] ${verdict(within)}`,
        `  at the real row-read limit     ${(used / ROW_READS_PER_MINUTE).toFixed(1)} min (${n(ROW_READS_PER_MINUTE)} row requests a minute); here ${seconds.toFixed(1)} s at ${SCALE}x (the limit alone: ${limitSeconds.toFixed(1)} s)`,
        `  sent / existing                ${n(summary.records.sent)} / ${n(summary.key.existing)} ${verdict(summary.records.sent === RECORDS - existing.length && summary.key.existing === existing.length)}`,
      ].join('\n'),
    );
  }
}

/**
 * The fewest row requests the keys can be looked up in: packed in input order into `in` lists of at
 * most 1,000 characters of JSON per rule (text) or one key per `=` rule (email), 97 rules a query;
 * each query is one request, and one more per further 100 keys of it that the table holds.
 * @param {string} type
 * @param {string[]} keys
 * @param {(key: string) => boolean} present
 */
function idealRequests(type, keys, present) {
  /** @type {string[][]} */
  const rules = [];
  let chars = Infinity;
  for (const key of keys) {
    const added = JSON.stringify(key).length + 1;
    if (type === 'email' || chars + added > FILTER_VALUE_MAX_CHARS) {
      rules.push([key]);
      chars = 1 + added;
    } else {
      rules.at(-1)?.push(key);
      chars += added;
    }
  }
  let requests = 0;
  for (let start = 0; start < rules.length; start += RULES_PER_QUERY) {
    const matches = rules
      .slice(start, start + RULES_PER_QUERY)
      .flat()
      .filter(present).length;
    requests += Math.max(1, Math.ceil(matches / PAGE_LIMIT_MAX));
  }
  return requests;
}

/**
 * @param {Emulator} emu
 * @param {string} name
 * @param {{ column: string, type: string, key: string }} bench
 * @returns {Promise<{ id: string, name: string, webhookUrl: string }>}
 */
async function createTable(emu, name, bench) {
  const body = { workspace: 'Marketing', name, webhook: true, fields: [{ label: bench.column, type: bench.type, mapKey: bench.key }] };
  const reply = /** @type {{ table: { id: string, name: string }, webhookUrl: string }} */ (await admin(emu, '/tables', body));
  return { id: reply.table.id, name: reply.table.name, webhookUrl: reply.webhookUrl };
}

/**
 * @param {Emulator} emu
 * @param {string} tableId
 * @param {Array<Record<string, string>>} rows
 */
async function addRows(emu, tableId, rows) {
  for (let start = 0; start < rows.length; start += 20_000) {
    await admin(emu, `/tables/${tableId}/rows`, { rows: rows.slice(start, start + 20_000).map((cells) => ({ cells })) });
  }
}

/**
 * @param {Emulator} emu
 * @param {string} path
 * @param {unknown} body
 */
async function admin(emu, path, body) {
  const response = await request(`${new URL(emu.baseUrl).origin}/_emulator${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const reply = await response.body.json();
  if (response.statusCode >= 300) throw new Error(`admin ${path}: ${JSON.stringify(reply)}`);
  return reply;
}

/**
 * Row requests (GET rows, POST rows/query) the emulator has answered so far.
 * @param {Emulator} emu
 */
async function rowRequests(emu) {
  const response = await request(`${new URL(emu.baseUrl).origin}/_emulator/requests`);
  const entries = /** @type {LoggedRequest[]} */ (await response.body.json());
  return entries.filter((entry) => entry.bucket === 'rows' && entry.status !== 429).length;
}

/**
 * @param {Emulator} emu
 * @param {string[]} args
 * @returns {Promise<{ code: number | null, stdout: string, stderr: string }>}
 */
function runTds(emu, args) {
  return new Promise((resolve, reject) => {
    const env = {
      ...process.env,
      NO_COLOR: '1',
      TDS_BASE_URL: emu.baseUrl,
      TDS_API_KEY: emu.apiKey,
      TDS_RATE_SCALE: String(SCALE),
      // the push's journal and ledger stay in the run's folder, out of the user's data folder
      TDS_DATA_DIR: join(dir, 'data'),
    };
    const child = spawn(process.execPath, [TDS_BIN, ...args], { env, cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (/** @type {Buffer} */ chunk) => (stdout += chunk.toString()));
    child.stderr.on('data', (/** @type {Buffer} */ chunk) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * `tds emulator` as a child with the rate windows SCALE times shorter and rows visible 0.2 s after intake.
 * @returns {Promise<Emulator>}
 */
function startScaledEmulator(/** @type {number} */ latencyMs) {
  const latency = latencyMs > 0 ? ['--latency', String(latencyMs)] : [];
  return startEmulator(
    ['--seed', 'demo', '--rate-scale', String(SCALE), '--ingest-delay', String(Math.round(4000 / SCALE)), ...latency],
    [],
  );
}
