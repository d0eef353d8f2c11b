#!/usr/bin/env node
// @ts-check
// `tds mcp`: how soon an agent can talk to it, and how fast query_sql answers over a large mirror.
// Targets (issue 46):
//
// 1. From spawn to the answer of `initialize`: median <= 300 ms, in paired runs (--repeat N pairs, at least 5)
//    with a bare Node that answers one line (what any stdio server costs first), or with BENCH_BASELINE's
//    `tds mcp` (another build's bin/tds.js: old against new); each a fresh process sent `initialize` first.
// 2. `query_sql` of an aggregate over the 1,000,000-row mirror: median <= 20 ms over 20 calls, warm
//    (one call first, not counted), timed at the client (the SDK's Client over stdio): request to answer.
//    With BENCH_BASELINE, the calls alternate between its server and this one (paired). The mirror is made
//    by `tds sync Generated` from an emulator child with `--rows 1000000 --no-rate-limits` (or
//    BENCH_MIRROR: an existing mirror of that table, kept between runs).
//
// Run: npm run bench -- mcp [--repeat N]    (exits 1 when a target is missed; traffic only to 127.0.0.1)
// Env: BENCH_ROWS (default 1000000), BENCH_MIRROR (a mirror file to reuse or make), BENCH_BASELINE.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { TDS_BIN, load, median, n, pairedRuns, repeats, seconds, spread, startEmulator, verdict } from './support.mjs';

/** @typedef {import('./support.mjs').Emulator} Emulator */

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const PAIRS = repeats(7);
const CALLS = 20;
const TARGET = { initializeMs: 300, queryMedianMs: 20 };
const BASELINE = process.env.BENCH_BASELINE;
/** Bare Node answering one line: what any stdio server costs before its own code. */
const ECHO_LINE = [
  '-e',
  `process.stdin.once('data', () => process.stdout.write('{"serverInfo":{}}\\n')); process.stdin.on('end', () => process.exit(0))`,
];
const AGGREGATE =
  'SELECT "Plan", count(*) AS n, avg("Amount") AS mean, max("Signed Up") AS newest FROM generated GROUP BY "Plan" ORDER BY n DESC';

const dir = mkdtempSync(join(tmpdir(), 'tds-mcp-bench-'));
const mirror = process.env.BENCH_MIRROR ?? join(dir, 'mirror.duckdb');
/** @type {Emulator[]} */
const emulators = [];
const { check, missed } = verdict();

/** The environment of a tds child: this one's without TDS_*, a config folder of the bench's own. */
function tdsEnv(/** @type {Record<string, string>} */ extra = {}) {
  /** @type {Record<string, string>} */
  const env = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined && !key.startsWith('TDS_')) env[key] = value;
  return { ...env, NO_COLOR: '1', TDS_CONFIG_DIR: join(dir, 'config'), ...extra };
}

/** Phase 1: spawn → the answer of initialize, a fresh process each time, paired with a baseline. */
async function startUp() {
  console.log(`\n1. spawn to the answer of initialize, fresh processes. Target: median <= ${TARGET.initializeMs} ms`);
  const pairs = await pairedRuns({
    a: BASELINE
      ? { name: 'baseline tds mcp', run: () => initializeOnce([BASELINE, 'mcp']) }
      : { name: 'bare node answering a line', run: () => initializeOnce(ECHO_LINE) },
    b: { name: 'this tds mcp', run: () => initializeOnce([TDS_BIN, 'mcp']) },
    pairs: PAIRS,
  });
  check(
    median(pairs.b) <= TARGET.initializeMs,
    `initialize answered ${Math.round(median(pairs.b))} ms after spawn (median; target <= ${TARGET.initializeMs} ms)`,
  );
}

/**
 * @param {string[]} args node's arguments: a server that answers its first line
 * @returns {Promise<number>} ms from spawn to the first line on stdout (the answer of initialize)
 */
function initializeOnce(args) {
  const started = performance.now();
  const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'ignore'], env: tdsEnv({ TDS_DB: mirror }) });
  child.stdin.write(
    `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } })}\n`,
  );
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`tds mcp exited with ${code} before answering`)));
    createInterface({ input: child.stdout }).once('line', (line) => {
      const ms = performance.now() - started;
      child.removeAllListeners('exit');
      if (!line.includes('"serverInfo"')) return reject(new Error(`not the answer of initialize: ${line}`));
      child.stdin.end();
      child.once('exit', () => resolve(ms));
    });
  });
}

/** The 1,000,000-row mirror: synced from an emulator child without rate limits, unless BENCH_MIRROR has it. */
async function makeMirror() {
  if (existsSync(mirror)) return console.log(`\n2. the mirror: ${mirror} (kept from an earlier run)`);
  const emu = await startEmulator(['--rows', String(ROWS), '--no-rate-limits', '--seed', 'empty'], emulators);
  const started = performance.now();
  const synced = await runTds(['sync', 'Generated', '--db', mirror], {
    TDS_BASE_URL: emu.baseUrl,
    TDS_API_KEY: emu.apiKey,
    TDS_RATE_SCALE: '1000000',
  });
  if (synced.code !== 0) throw new Error(`tds sync failed (${synced.code}): ${synced.stderr}`);
  console.log(`\n2. the mirror: tds sync of ${n(ROWS)} rows in ${seconds(performance.now() - started)}`);
  await emu.stop();
}

/**
 * @param {string[]} args
 * @param {Record<string, string>} env
 * @returns {Promise<{ code: number | null, stderr: string }>}
 */
function runTds(args, env) {
  const child = spawn(process.execPath, [TDS_BIN, ...args], { stdio: ['ignore', 'ignore', 'pipe'], env: tdsEnv(env) });
  let stderr = '';
  child.stderr.on('data', (/** @type {Buffer} */ chunk) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stderr })));
}

/**
 * A `tds mcp` over the mirror (BIN: this one or BENCH_BASELINE's) with a client connected, and its timed query_sql.
 * @param {string} bin
 */
async function connect(bin) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, 'mcp', '--db', mirror],
    env: tdsEnv(),
    stderr: 'ignore',
  });
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(transport);
  const query = async () => {
    const started = performance.now();
    const result = await client.callTool({ name: 'query_sql', arguments: { sql: AGGREGATE } });
    const ms = performance.now() - started;
    if (result.isError) throw new Error(`query_sql failed: ${JSON.stringify(result.content)}`);
    return { ms, answer: /** @type {{ row_count: number, rows: Array<Record<string, unknown>> }} */ (result.structuredContent) };
  };
  return { client, query };
}

/** Phase 3: query_sql of an aggregate, warm, timed at the client (alternating with the baseline's server when given). */
async function querySpeed() {
  console.log(
    `\n3. query_sql of an aggregate over ${n(ROWS)} rows, ${CALLS} calls after one to warm up. Target: median <= ${TARGET.queryMedianMs} ms (load ${load()})`,
  );
  console.log(`   ${AGGREGATE}`);
  const ours = await connect(TDS_BIN);
  const theirs = BASELINE ? await connect(BASELINE) : undefined;
  try {
    const { answer } = await ours.query();
    await theirs?.query();
    console.log(`   answer: ${answer.row_count} rows, ${n(answer.rows.reduce((sum, row) => sum + Number(row.n), 0))} counted`);
    /** @type {number[]} */
    let times = [];
    if (theirs) {
      const pairs = await pairedRuns({
        a: { name: 'baseline query_sql', run: async () => (await theirs.query()).ms },
        b: { name: 'this query_sql', run: async () => (await ours.query()).ms },
        pairs: Math.max(CALLS, PAIRS),
      });
      times = pairs.b;
    } else {
      for (let i = 0; i < CALLS; i += 1) times.push((await ours.query()).ms);
      console.log(`   ${spread(times)}`);
    }
    check(
      median(times) <= TARGET.queryMedianMs,
      `query_sql median ${Math.round(median(times))} ms over ${times.length} warm calls (target <= ${TARGET.queryMedianMs} ms)`,
    );
  } finally {
    await ours.client.close();
    await theirs?.client.close();
  }
}

try {
  await startUp();
  await makeMirror();
  await querySpeed();
} finally {
  await Promise.all(emulators.map((emu) => emu.stop()));
  rmSync(dir, { recursive: true, force: true });
}
process.exit(missed() ? 1 : 0);
