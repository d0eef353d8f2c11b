#!/usr/bin/env node
// `tds push` throughput on a 1,000,000-record CSV (PUSH_BENCH_RECORDS to change it):
//   1. parse-and-batch speed alone: `tds push --dry-run`           (target >= 200,000 records/s)
//   2. a real push to the emulator at its real webhook limit, 100 requests/s per IP, so the ceiling is
//      100 x 500 = 50,000 records/s                                (target >= 90% of it)
//      (by default a file is sent as it is read; --validate-first checks it in full before the first request)
//   3. peak RSS of the tds process (its own maxRSS, and VmHWM sampled from /proc)   (target <= 200 MB)
//   4. a naive sequential sender of the same batches (undici, one request at a time, retry-after on 429)
// Each push goes to a fresh emulator child process whose intake delay is an hour: making 1,000,000
// webhook rows visible is the emulator's own work (and slow), not the client's, so it is kept out.
// Run: npm run build && node bench/push.bench.js
import { spawn } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Pool, request } from 'undici';
import { batchRecords } from '#dist/push/plan/batch.js';
import { readInput } from '#dist/push/input/read-input.js';
import { WEBHOOK_MAX_BODY_BYTES, WEBHOOK_MAX_OBJECTS } from '#dist/spec/index.js';

const RECORDS = Number(process.env.PUSH_BENCH_RECORDS ?? 1_000_000);
const BIN = fileURLToPath(new URL('../bin/tds.js', import.meta.url));
const CEILING = 100 * WEBHOOK_MAX_OBJECTS;
const n = (value) => Math.round(value).toLocaleString('en-US');

const dir = await mkdtemp(join(tmpdir(), 'tds-push-bench-'));
const csv = join(dir, 'people.csv');
try {
  await generateCsv(csv, RECORDS);
  step(`generated ${n(RECORDS)} records`);

  const dry = await runTds(['push', '--dry-run', '--json', csv]);
  const plan = JSON.parse(dry.stdout);
  const dryRate = plan.records.read / (dry.wallMs / 1000);
  step('dry run done');

  const emu1 = await startEmulator();
  const push = await runTds(['push', await inboxUrl(emu1), csv, '--validate-first', '--json', '--journal', join(dir, 'push.journal')]);
  const pushed = JSON.parse(push.stdout);
  const log1 = await emulatorLog(emu1);
  await emu1.stop();
  step('push --validate-first done');

  const emuStream = await startEmulator();
  const streamed = await runTds(['push', await inboxUrl(emuStream), csv, '--json', '--journal', join(dir, 'stream.journal')]);
  const streamedSummary = JSON.parse(streamed.stdout);
  const logStream = await emulatorLog(emuStream);
  await emuStream.stop();
  step('push done');

  const emu2 = await startEmulator();
  const naive = await naiveSender(await inboxUrl(emu2), csv);
  const log2 = await emulatorLog(emu2);
  await emu2.stop();

  const pushRate = pushed.records.sent / (push.wallMs / 1000);
  const sendRate = pushed.records.sent / pushed.sendSeconds;
  const streamRate = streamedSummary.records.sent / (streamed.wallMs / 1000);
  const lines = [
    `records                          ${n(RECORDS)} (${(plan.bytes / 1e6).toFixed(1)} MB of request bodies in ${n(plan.batches.total)} batches)`,
    `dry run (parse and batch)        ${(dry.wallMs / 1000).toFixed(2)} s wall: ${n(dryRate)} records/s  [target >= 200,000] ${verdict(dryRate >= 200_000)}`,
    `  inside the process             ${plan.seconds.toFixed(2)} s: ${n(plan.recordsPerSecond)} records/s (without Node's start-up)`,
    `  CPU                            ${plan.cpuSeconds.toFixed(2)} s: ${n(RECORDS / plan.cpuSeconds)} records per CPU-second`,
    `  peak RSS                       ${mb(plan.maxRssBytes)} MB (VmHWM ${mb(dry.peakBytes)} MB)`,
    `push --validate-first            ${(push.wallMs / 1000).toFixed(2)} s wall: ${n(pushRate)} records/s = ${pct(pushRate)} of ${n(CEILING)} (the check costs the difference)`,
    `  of which checking the file     ${pushed.checkSeconds.toFixed(2)} s (a file is validated in full before the first request)`,
    `  sending                        ${pushed.sendSeconds.toFixed(2)} s: ${n(sendRate)} records/s = ${pct(sendRate)} of the ceiling ${verdict(sendRate >= 0.9 * CEILING)}`,
    `  requests                       ${n(log1.posts)} POST (${n(log1.limited)} answered 429), exit ${push.code}, sent ${n(pushed.records.sent)}`,
    `  CPU of tds                     ${pushed.cpuSeconds.toFixed(2)} s (both passes)`,
    `  peak RSS                       ${mb(pushed.maxRssBytes)} MB (VmHWM ${mb(push.peakBytes)} MB)  [target <= 200 MB] ${verdict(Math.max(pushed.maxRssBytes, push.peakBytes ?? 0) <= 200e6)}`,
    `push at the real webhook limit   ${(streamed.wallMs / 1000).toFixed(2)} s wall: ${n(streamRate)} records/s = ${pct(streamRate)} of ${n(CEILING)}  [target >= 90%] ${verdict(streamRate >= 0.9 * CEILING)}`,
    `  requests                       ${n(logStream.posts)} POST (${n(logStream.limited)} answered 429), exit ${streamed.code}, sent ${n(streamedSummary.records.sent)}`,
    `  peak RSS                       ${mb(streamedSummary.maxRssBytes)} MB (VmHWM ${mb(streamed.peakBytes)} MB)`,
    `naive sequential sender          ${(naive.ms / 1000).toFixed(2)} s: ${n(naive.records / (naive.ms / 1000))} records/s = ${pct(naive.records / (naive.ms / 1000))} of the ceiling`,
    `  requests                       ${n(log2.posts)} POST (${n(log2.limited)} answered 429)`,
  ];
  console.log(lines.join('\n'));
} finally {
  await rm(dir, { recursive: true, force: true });
}

function step(text) {
  process.stderr.write(`  … ${text}\n`);
}

async function generateCsv(path, count) {
  const out = createWriteStream(path);
  out.write('name,email,amount,active,city,notes\n');
  let chunk = '';
  for (let i = 1; i <= count; i += 1) {
    chunk += `Person ${i},p${i}@example.com,${(i * 37) % 100000},${i % 2 === 0},"City, ${i % 100}",${i % 7 === 0 ? '' : `note ${i}`}\n`;
    if (chunk.length > 1 << 20) {
      if (!out.write(chunk)) await new Promise((resolve) => out.once('drain', resolve));
      chunk = '';
    }
  }
  await new Promise((resolve, reject) => out.end(chunk, (error) => (error ? reject(error) : resolve())));
}

/** Forks bin/tds.js; wall time, and the peak RSS sampled from /proc/PID/status (Linux). */
function runTds(args) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { ...process.env, NO_COLOR: '1', TDS_PUSH_REPORT_USAGE: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let peakBytes;
    const sample = () => {
      try {
        const kb = Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1]);
        if (kb) peakBytes = Math.max(peakBytes ?? 0, kb * 1024);
      } catch {
        // not Linux, or the process has ended
      }
    };
    const timer = setInterval(sample, 100);
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      clearInterval(timer);
      const wallMs = performance.now() - started;
      if (!stdout.trim()) return reject(new Error(`tds ${args[0]} exited ${code}: ${stderr}`));
      resolve({ code, stdout, stderr, wallMs, peakBytes });
    });
  });
}

/** `tds emulator` as a child at the real rate limits; pushed rows stay in its intake (an hour's delay). */
function startEmulator() {
  const child = spawn(process.execPath, [BIN, 'emulator', '--port', '0', '--seed', 'demo', '--ingest-delay', '3600000'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    createInterface({ input: child.stdout }).once('line', (line) => {
      const info = JSON.parse(line);
      resolve({
        ...info,
        stop: () =>
          new Promise((done) => {
            const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
            child.once('exit', () => {
              clearTimeout(timer);
              done();
            });
            child.kill('SIGTERM');
          }),
      });
    });
  });
}

async function inboxUrl(emu) {
  const response = await request(`${emu.baseUrl}/tables`, { headers: { authorization: `Bearer ${emu.apiKey}` } });
  const { tables } = await response.body.json();
  return emu.webhooks[tables.find((table) => table.name === 'Inbox').id];
}

async function emulatorLog(emu) {
  const response = await request(`${new URL(emu.baseUrl).origin}/_emulator/requests`);
  const log = (await response.body.json()).filter((entry) => entry.bucket === 'webhook' && entry.method === 'POST');
  return { posts: log.length, limited: log.filter((entry) => entry.status === 429).length };
}

/** The same batches, one request at a time, no pacing: on 429 it waits retry-after (10 s without) and retries. */
async function naiveSender(url, path) {
  const target = new URL(url);
  const pool = new Pool(target.origin, { connections: 1 });
  const started = performance.now();
  let records = 0;
  const reader = readInput(path, process.stdin, { format: 'csv', infer: false, relaxColumns: false });
  for await (const event of batchRecords(reader.records, { maxObjects: WEBHOOK_MAX_OBJECTS, maxBytes: WEBHOOK_MAX_BODY_BYTES })) {
    if (event.kind !== 'batch') continue;
    for (;;) {
      const response = await pool.request({
        method: 'POST',
        path: target.pathname,
        headers: { 'content-type': 'application/json' },
        body: event.batch.body,
      });
      await response.body.text();
      if (response.statusCode === 429) {
        await new Promise((resolve) => setTimeout(resolve, Number(response.headers['retry-after'] ?? 10) * 1000));
        continue;
      }
      if (response.statusCode >= 300) throw new Error(`naive sender: HTTP ${response.statusCode}`);
      records += event.batch.items.length;
      break;
    }
  }
  await pool.close();
  return { records, ms: performance.now() - started };
}

function mb(bytes) {
  return bytes === undefined ? '?' : (bytes / 1e6).toFixed(0);
}

function pct(rate) {
  return `${((100 * rate) / CEILING).toFixed(1)}%`;
}

function verdict(ok) {
  return ok ? 'ok' : 'MISSED';
}
