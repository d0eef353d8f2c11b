#!/usr/bin/env node
// @ts-check
// Emulator throughput and memory on the 1,000,000-row generated table, with churn running.
//
// 1. Throughput: the emulator in this process (one core runs both ends: a sequential keep-alive client and
//    the server), `rows: 1000000` and churn (BENCH_CHURN, default add:100/s,update:20/s,delete:5/s on every
//    table). Rows/s served for plain pages (target >= 20,000 rows/s), filtered queries and search.
// 2. Memory: `tds emulator --rows 1000000 --churn add:100/s` as a child for BENCH_MEMORY_SECONDS (default 60),
//    its RSS read from /proc every second: peak RSS, and the growth of the curve from 10 s on (target: flat,
//    <= 48 MB over the minute: the rows churn adds, about 6,000, and the collector's slack).
//
// Run: npm run bench -- emulator     (exits non-zero when a target is missed; traffic only to 127.0.0.1)
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { Client } from 'undici';
import { startEmulator } from '#dist/emulator/index.js';

const ROWS = 1_000_000;
const PAGES = 200;
const CHURN = process.env.BENCH_CHURN ?? 'add:100/s,update:20/s,delete:5/s';
const MEMORY_SECONDS = Number(process.env.BENCH_MEMORY_SECONDS ?? 60);
const TARGET_ROWS_PER_SECOND = 20_000;
const TARGET_GROWTH_MB = 48;
const TDS = fileURLToPath(new URL('../bin/tds.js', import.meta.url));

/** @typedef {{ rows: Array<{ id: string }>, nextCursor: string | null, hasNextPage: boolean }} Page */
/** @typedef {{ rows: number, bytes: number, ms: number, cpuMs: number }} Walk */
/** @typedef {(cursor: string | undefined) => Promise<{ json: Page, bytes: number }>} PageFetch */

let failed = false;
const throughput = await measureThroughput();
if (throughput < TARGET_ROWS_PER_SECOND) {
  console.log(`plain pages below the ${TARGET_ROWS_PER_SECOND.toLocaleString('en-US')} rows/s target`);
  failed = true;
}
const growth = await measureMemory();
if (growth > TARGET_GROWTH_MB) {
  console.log(`RSS grew ${growth.toFixed(0)} MB, more than the ${TARGET_GROWTH_MB} MB target`);
  failed = true;
}
if (failed) process.exitCode = 1;

/** Phase 1; returns the plain pages' rows/s. */
async function measureThroughput() {
  const loadStart = performance.now();
  const emu = await startEmulator({ port: 0, rows: ROWS, rateLimits: false, churn: CHURN, actionDelayMs: 1_000 });
  const loadMs = performance.now() - loadStart;
  const client = new Client(new URL(emu.baseUrl).origin, { pipelining: 1 });
  const headers = { authorization: `Bearer ${emu.apiKey}`, 'content-type': 'application/json' };
  const base = new URL(emu.baseUrl).pathname;

  /**
   * @param {'GET' | 'POST'} method
   * @param {string} path
   * @param {unknown} [body]
   * @returns {Promise<{ json: any, bytes: number }>}
   */
  async function call(method, path, body) {
    const response = await client.request({
      method,
      path: `${base}${path}`,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.body.text();
    if (response.statusCode !== 200) throw new Error(`${method} ${path}: HTTP ${response.statusCode} ${text}`);
    return { json: JSON.parse(text), bytes: text.length };
  }

  const { json: tables } = await call('GET', '/tables');
  const table = /** @type {Array<{ id: string, name: string }>} */ (tables.tables).find((candidate) => candidate.name === 'Generated');
  if (!table) throw new Error('no Generated table');
  const { json: schema } = await call('GET', `/tables/${table.id}/schema`);
  /** @type {Record<string, string>} */
  const field = Object.fromEntries(/** @type {Array<{ id: string, name: string }>} */ (schema.fields).map((f) => [f.name, f.id]));
  /** @type {PageFetch} */
  const plainPage = (cursor) => call('GET', `/tables/${table.id}/rows?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
  /**
   * @param {object | undefined} filters
   * @param {object} [extra]
   * @returns {PageFetch}
   */
  const query =
    (filters, extra = {}) =>
    (cursor) =>
      call('POST', `/tables/${table.id}/rows/query`, {
        limit: 100,
        ...extra,
        ...(filters ? { filters } : {}),
        ...(cursor ? { cursor } : {}),
      });

  await walk(20, plainPage); // warm-up
  console.log(`emulator: ${ROWS.toLocaleString('en-US')} generated rows loaded in ${loadMs.toFixed(0)} ms; churn ${CHURN}`);
  const plain = report(`plain pages (GET rows, ${PAGES} pages)`, await walk(PAGES, plainPage));
  report('filtered: Plan in [Pro] (~25%)', await walk(PAGES, query({ rules: [{ fieldId: field.plan, operator: 'in', value: ['Pro'] }] })));
  const activeRich = {
    rules: [
      { fieldId: field.active, operator: '=', value: true },
      { fieldId: field.amount, operator: '>', value: 5000 },
    ],
  };
  report('filtered: Active and Amount > 5000', await walk(PAGES, query(activeRich)));
  report('search: q "lovelace" (~5%)', await walk(PAGES, query(undefined, { q: 'lovelace' })));
  report('filtered: Amount > 9990 (~0.1%)', await walk(20, query({ rules: [{ fieldId: field.amount, operator: '>', value: 9990 }] })));
  const { json: after } = await call('GET', '/tables');
  const rowCount = /** @type {Array<{ id: string, rowCount: number }>} */ (after.tables).find((t) => t.id === table.id)?.rowCount ?? 0;
  console.log(`Generated has ${rowCount.toLocaleString('en-US')} rows after the walks (churn changed ${Math.abs(rowCount - ROWS)} net)`);
  console.log(`peak RSS of this process: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
  await client.close();
  await emu.close();
  return plain;
}

/**
 * Follows nextCursor for up to `pages` pages.
 * @param {number} pages
 * @param {PageFetch} next
 * @returns {Promise<Walk>}
 */
async function walk(pages, next) {
  const cpuStart = process.cpuUsage();
  const start = performance.now();
  /** @type {string | undefined} */
  let cursor;
  let rows = 0;
  let bytes = 0;
  for (let page = 0; page < pages; page += 1) {
    const { json, bytes: size } = await next(cursor);
    rows += json.rows.length;
    bytes += size;
    if (!json.hasNextPage || json.nextCursor === null) break;
    cursor = json.nextCursor;
  }
  const cpu = process.cpuUsage(cpuStart);
  return { rows, bytes, ms: performance.now() - start, cpuMs: (cpu.user + cpu.system) / 1000 };
}

/**
 * Prints one line; returns rows per second.
 * @param {string} name
 * @param {Walk} walked
 */
function report(name, { rows, bytes, ms, cpuMs }) {
  const perSecond = Math.round((rows / ms) * 1000);
  const perCpuSecond = Math.round((rows / cpuMs) * 1000);
  console.log(
    `${name.padEnd(36)} ${String(rows).padStart(7)} rows in ${ms.toFixed(0).padStart(5)} ms: ` +
      `${perSecond.toLocaleString('en-US').padStart(8)} rows/s (${perCpuSecond.toLocaleString('en-US')} rows per CPU-second), ` +
      `${(bytes / 1e6).toFixed(1)} MB`,
  );
  return perSecond;
}

/** Phase 2; returns the RSS growth in MB from 10 s to the end. */
async function measureMemory() {
  const args = [TDS, 'emulator', '--port', '0', '--rows', String(ROWS), '--churn', 'add:100/s', '--no-rate-limits'];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`tds emulator exited with ${code}`)));
    if (child.stdout) createInterface({ input: child.stdout }).once('line', resolve);
  });
  /** @type {Array<[seconds: number, mb: number]>} */
  const curve = [];
  for (let second = 0; second <= MEMORY_SECONDS; second += 1) {
    if (second > 0) await new Promise((resolve) => setTimeout(resolve, 1_000));
    curve.push([second, rssMb(child.pid ?? 0)]);
  }
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;

  const peak = Math.max(...curve.map(([, mb]) => mb));
  const from = curve.find(([second]) => second >= Math.min(10, MEMORY_SECONDS / 2)) ?? curve[0];
  const last = curve[curve.length - 1];
  if (!from || !last) throw new Error('no RSS samples');
  const growth = last[1] - from[1];
  const samples = curve.filter(([second]) => second % 10 === 0).map(([second, mb]) => `${second}s ${mb.toFixed(0)}`);
  console.log(`tds emulator --rows ${ROWS} --churn add:100/s for ${MEMORY_SECONDS} s: RSS MB at ${samples.join(', ')}`);
  console.log(
    `peak RSS ${peak.toFixed(0)} MB; growth from ${from[0]} s to ${last[0]} s: ${growth.toFixed(1)} MB ` +
      `(${((growth / Math.max(1, last[0] - from[0])) * 60).toFixed(1)} MB a minute, about ${MEMORY_SECONDS * 100} rows added)`,
  );
  return growth;
}

/**
 * Resident memory of a process, from /proc (Linux).
 * @param {number} pid
 */
function rssMb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
  return kb / 1024;
}
