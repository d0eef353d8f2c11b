#!/usr/bin/env node
// @ts-check
// What DuckDB itself costs for the rows of a first sync, without HTTP: ROWS (1,000,000) rows of the columns of the
// emulator's Generated table, made up here, appended through tds's own appender (duckdb/append-rows.ts) into a
// mirror-like table in a new file, in three ways, each in a child process of its own:
//   keyless   one transaction, no primary key: DuckDB's floor for storing the rows
//   keyed     one transaction, the `_id` primary key a mirror table has
//   groups    the key, in transactions of 65,536 rows from two connections taking turns, as a first sync writes them
//             (read-pages.ts, mirror-writer.ts), its memory limit following the index (index-memory.ts)
// The allocator set as a sync sets it (freed pages returned at once: engine.ts returnFreedMemory).
// Each child's CPU (user + system), less the time it spent making the rows, and its peak RSS; --repeat N rounds (at
// least 5) of the three in turn, medians with their spread. No target: this says how much of the first sync's
// target (its CPU <= 1.3x the CSV export's, sync.bench.js) is left once DuckDB has had its part, on this machine.
//
// Run: npm run bench -- sync-floor [--repeat N]      Env: BENCH_ROWS (1000000)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load, median, n, repeats, spread } from './support.mjs';

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const GROUP_ROWS = 65_536;
const MODES = /** @type {const} */ (['keyless', 'keyed', 'groups']);
const NAMES = ['Ada Lovelace', 'Katherine Liskov', 'Ken Johnson', 'Grace Hopper', 'Alan Turing', 'Edsger Dijkstra'];
const PLANS = ['Free', 'Starter', 'Pro', 'Enterprise'];
const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** @typedef {typeof MODES[number]} Mode */
/** @typedef {{ cpuMs: number, makeMs: number, peakMb: number }} ChildResult */

if (process.argv[2] === '--child') {
  const result = await appendRows(/** @type {Mode} */ (process.argv[3]), String(process.argv[4]));
  process.stdout.write(`${JSON.stringify(result)}\n`);
} else {
  await compare();
}

async function compare() {
  const rounds = repeats(5);
  console.log(`load average before: ${load()} on ${availableParallelism()} CPUs`);
  console.log(
    `${n(ROWS)} rows into DuckDB through tds's appender, no HTTP, ${rounds} rounds of: ${MODES.join(', ')} ` +
      '(CPU less the time making the rows)',
  );
  const dir = mkdtempSync(join(tmpdir(), 'tds-bench-floor-'));
  /** @type {Record<Mode, ChildResult[]>} */
  const results = { keyless: [], keyed: [], groups: [] };
  try {
    for (let round = 0; round < rounds; round += 1) {
      for (const mode of MODES) {
        const file = join(dir, `${mode}.duckdb`);
        for (const each of [file, `${file}.wal`]) rmSync(each, { force: true });
        const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child', mode, file], {
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        if (child.status !== 0) throw new Error(`the ${mode} child exited with ${child.status ?? child.signal}`);
        /** @type {ChildResult} */
        const result = JSON.parse(child.stdout);
        results[mode].push(result);
        console.log(`   ${mode}: CPU ${(result.cpuMs / 1000).toFixed(1)} s, peak RSS ${result.peakMb} MB`);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  for (const mode of MODES) {
    const runs = results[mode];
    console.log(`   ${mode}: CPU ${spread(runs.map((run) => run.cpuMs))}, peak RSS median ${median(runs.map((run) => run.peakMb))} MB`);
  }
  const ratios = results.groups.map((run, i) => run.cpuMs / (results.keyless[i]?.cpuMs ?? Number.NaN));
  console.log(`   groups / keyless, CPU: ${spread(ratios, 'x', 2)}`);
  console.log(`load average after: ${load()}`);
}

/**
 * One child: the rows appended in `mode` into a new file at `path`.
 * @param {Mode} mode
 * @param {string} path
 * @returns {Promise<ChildResult>}
 */
async function appendRows(mode, path) {
  const { openDatabase, openRowAppender, returnFreedMemory } = await import('#dist/duckdb/index.js');
  returnFreedMemory(0); // as a sync sets DuckDB's allocator (sync-run.ts)
  const { fitIndexMemory } = await import('#dist/mirror/index-memory.js');
  const db = await openDatabase(path, { readOnly: false, what: 'the bench file', memoryLimit: mode === 'groups' ? '64MB' : '1GB' });
  const key = mode === 'keyless' ? '' : ' PRIMARY KEY';
  await db.connection.run(
    `CREATE TABLE rows (_id VARCHAR${key}, _createdAt TIMESTAMPTZ, _updatedAt TIMESTAMPTZ, _createdByUserId VARCHAR, ` +
      '"Name" VARCHAR, Email VARCHAR, Amount DOUBLE, Active BOOLEAN, "Signed Up" TIMESTAMPTZ, Plan VARCHAR, Notes VARCHAR, ' +
      '_truncated VARCHAR[], _syncId BIGINT)',
  );
  const types = /** @type {const} */ ([
    'VARCHAR',
    'TIMESTAMPTZ',
    'TIMESTAMPTZ',
    'VARCHAR',
    'VARCHAR',
    'VARCHAR',
    'DOUBLE',
    'BOOLEAN',
    'TIMESTAMPTZ',
    'VARCHAR',
    'VARCHAR',
    'VARCHAR[]',
    'BIGINT',
  ]);
  const group = mode === 'groups' ? GROUP_ROWS : ROWS;
  const lanes = [];
  for (let i = 0; i < (mode === 'groups' ? 2 : 1); i += 1) lanes.push(await db.connect());
  const cpuStart = process.cpuUsage();
  let makeMs = 0;
  for (let done = 0, turn = 0; done < ROWS; turn += 1) {
    const connection = lanes[turn % lanes.length];
    if (!connection) throw new Error('no lane');
    const appender = await openRowAppender({ connection }, { name: 'rows' }, types, 1);
    const rows = Math.min(group, ROWS - done);
    await connection.run('BEGIN TRANSACTION');
    for (let page = 0; page < rows; page += 100) {
      const made = performance.now();
      const values = [];
      for (let i = page; i < Math.min(page + 100, rows); i += 1) values.push(madeRow(done + i));
      makeMs += performance.now() - made;
      await appender.append(values);
    }
    appender.flush();
    await connection.run('COMMIT');
    appender.close();
    if (mode === 'groups') await fitIndexMemory(connection);
    done += rows;
  }
  for (const connection of lanes) connection.closeSync();
  db.close();
  const cpu = process.cpuUsage(cpuStart);
  return {
    cpuMs: Math.round((cpu.user + cpu.system) / 1000 - makeMs),
    makeMs: Math.round(makeMs),
    peakMb: Math.round(process.resourceUsage().maxRSS / 1024),
  };
}

/**
 * Row i: an ID of the service's shape (random, then i so that none repeats), values like Generated's.
 * @param {number} i
 */
function madeRow(i) {
  let id = 'r-';
  for (let k = 0; k < 8; k += 1) id += ID_ALPHABET[Math.floor(Math.random() * ID_ALPHABET.length)];
  id += i.toString(36).padStart(5, '0');
  const created = new Date(1.8e12 - i * 1000).toISOString();
  const signedUp = new Date(1.7e12 + Math.floor(Math.random() * 3e10)).toISOString();
  const name = NAMES[i % NAMES.length] ?? '';
  return [
    id,
    created,
    created,
    null,
    name,
    `${name.split(' ')[0]?.toLowerCase()}.${i}@bench.example`,
    Math.round(Math.random() * 1e6) / 100,
    i % 2 === 0,
    signedUp,
    PLANS[i % PLANS.length] ?? null,
    'Met at the conference; follow up next week.',
    null,
  ];
}
